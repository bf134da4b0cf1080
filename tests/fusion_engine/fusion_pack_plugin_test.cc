// The SwiGLU pack of sdk/examples/swiglu_rules, registered by that plugin built out of tree against the installed SDK
// (fixture kiln_swiglu_rules), applies as the same YAML given with --fusion.packs does.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli/run_kiln.h"
#include "ir/model.h"
#include "onnx/onnx_export.h"
#include "onnx/onnx_import.h"
#include "support/golden.h"

namespace kiln::testing {
namespace {

TEST(FusionPackPlugin, APackRegisteredByAnOutOfTreePluginApplies) {
  auto dir = TempDir("fusion_pack_plugin");
  auto m = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2,4] x) => (float[2,4] y) <float[4,4] wg = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1},
                                        float[4,4] wu = {2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2}> {
      g1 = MatMul (x, wg)
      sg = Sigmoid (g1)
      a = Mul (g1, sg)
      u = MatMul (x, wu)
      y = Mul (a, u)
    })");
  ASSERT_TRUE(m);
  std::string model = (dir / "mlp.onnx").string(), out = (dir / "out.onnx").string();
  WriteModel(*m, model);
  KilnRun listed = RunKiln(std::string("plugins --plugin ") + SWIGLU_PLUGIN);
  ASSERT_EQ(listed.rc, 0) << listed.output;
  EXPECT_NE(listed.output.find("user_swiglu"), std::string::npos) << listed.output;
  KilnRun r = RunKiln("compile " + model + " -o " + out + " --fusion.builtinPacks=false --plugin " + SWIGLU_PLUGIN);
  ASSERT_EQ(r.rc, 0) << r.output;
  auto fused = LoadModel(out);
  ASSERT_EQ(fused->graph().num_nodes(), 1u);
  EXPECT_EQ(fused->graph().nodes().front()->op_type(), "UserSwiGLU");
  EXPECT_EQ(RunKiln("verify " + model + " " + out).rc, 0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kiln::testing
