// Every ABI 1.2 slot but the analyses through a real shared-library boundary: the abi12_probe plugin
// (plugins/abi12_plugin.cc) reads a model with a function (counters in the report), builds with every building
// slot (the output file is read back here), and fails after outlining (the host must roll all of it back).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/run_kiln.h"
#include "exec/executor.h"
#include "ir/model.h"
#include "kernels/kernel_registry.h"
#include "onnx/onnx_export.h"
#include "onnx/onnx_import.h"
#include "support/function_text.h"

namespace kiln::testing {
namespace {
namespace fs = std::filesystem;

const char* kModel = R"(
<ir_version: 8, opset_import: ["" : 17, "test" : 1]>
g (float[2] x, float[2] y) => (float[2] z, float[2] w, float[1] p, float[1] q) <float[2] unused_weight = {1, 2}, float[2] a> {
  a = Add (x, y)
  b = test.Scale <alpha = 2.0> (a)
  z = Max (b, x)
  s = Sqrt (y)
  w = Neg (s)
  p, q = Split (z)
}
)";

FunctionText Scale() {
  return {"test", R"(Scale (float[2] v) => (float[2] r) {
    k = Constant <value_float = "@alpha:f"> ()
    r = Mul (v, k)
  })", {"alpha"}};
}

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class Abi12Slots : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    auto m = ParseModelWithFunctions(kModel, {Scale()});
    ASSERT_TRUE(m);
    m->metadata_props.emplace_back("author", "kiln");
    model_ = (dir_ / "model.onnx").string();
    WriteModel(*m, model_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  KilnRun Compile(const std::string& mode, const std::string& out, const std::string& extra = "") {
    fs::path pipeline = dir_ / ("pipeline_" + mode + ".yaml");
    std::ofstream(pipeline) << "level: O0\nstages:\n  - name: Prepare\n    passes: [{name: Abi12ProbePass, args: {mode: "
                            << mode << "}}]\n";
    return RunKiln("compile " + model_ + " -o " + (dir_ / out).string() + " --report " + (dir_ / "report.json").string() +
                   " --pipeline " + pipeline.string() + " --plugin " + KILN_TEST_PLUGIN_DIR +
                   "/libkiln_test_plugin_abi12.so " + extra);
  }
  nlohmann::json Probe() {
    const nlohmann::json report = nlohmann::json::parse(Slurp(dir_ / "report.json"));
    for (const auto& stage : report["stages"])
      for (const auto& p : stage["passes"])
        if (p["name"] == "Abi12ProbePass") return p;
    return nullptr;
  }

  fs::path dir_;
  std::string model_;
};

TEST_F(Abi12Slots, ReadSlotsSeeTheModel) {
  KilnRun r = Compile("read", "out.onnx");
  ASSERT_EQ(r.rc, 0) << r.output;
  nlohmann::json p = Probe();
  ASSERT_TRUE(p.is_object()) << r.output;
  const nlohmann::json expected = {{"ir_version", 8},       {"opsets", 2},           {"test_opset", 1},
                                   {"metadata_author_chars", 4}, {"functions", 1},  {"scale_attributes", 1},
                                   {"scale_body_nodes", 2}, {"scale_body_inputs", 1}, {"scale_calls", 1},
                                   {"body_knows_function", 1}, {"main_is_no_body", 1}, {"call_resolves", 1},
                                   {"ref_attribute", 1},    {"initializers", 1},     {"id_round_trip", 1},
                                   {"ids_differ", 1},       {"rule_packs_seen", 1},  {"instance_nodes", 2},
                                   {"instance_alpha_bound", 1}, {"instance_output_typed", 1},
                                   {"instance_of_non_call_fails", 1}};
  for (const auto& [k, v] : expected.items()) EXPECT_EQ(p["counters"][k], v) << k;
  EXPECT_FALSE(p["counters"].contains("split_graphs") && p["counters"]["split_graphs"] != 0);
  EXPECT_EQ(p["reports"]["probe"], nlohmann::json::parse(R"({"functions": ["Scale"]})"));
  EXPECT_EQ(p["reports"]["probe_list"], nlohmann::json::parse("[1, 2, 3]"));
  // Reading changes nothing: the output is the input.
  EXPECT_EQ(Slurp(dir_ / "out.onnx"), Slurp(model_));
}

TEST_F(Abi12Slots, BuildingSlotsChangeTheModelAsAsked) {
  KilnRun r = Compile("build", "built.onnx");
  ASSERT_EQ(r.rc, 0) << r.output;
  nlohmann::json p = Probe();
  EXPECT_EQ(p["counters"]["holder_graphs"], 2);
  EXPECT_EQ(p["counters"]["holder_tensors"], 2);
  EXPECT_EQ(p["counters"]["outlined_inputs"], 1);
  EXPECT_EQ(p["counters"]["scale_calls_after_inline"], 0);
  std::string bytes = Slurp(dir_ / "built.onnx");
  EXPECT_EQ(bytes.find("__kiln_"), std::string::npos);
  auto m = LoadModel((dir_ / "built.onnx").string());
  EXPECT_EQ(m->OpsetVersion("kiln.test"), 2);
  EXPECT_EQ(m->FindFunction("test", "Scale"), nullptr);
  Function* twice = m->FindFunction("kiln.test", "Twice");
  ASSERT_NE(twice, nullptr);
  EXPECT_EQ(twice->attribute_names(), std::vector<std::string>{"k"});
  EXPECT_NE(m->FindFunction("kiln.test", "SqrtNeg"), nullptr);
  bool found_call = false, annotated_split = false;
  for (const auto& n : m->graph().nodes()) {
    if (n->name() == "twice_call_renamed") {
      found_call = true;
      EXPECT_EQ(n->annotations().at("kiln.engine"), "vector");
      EXPECT_EQ(n->annotations().count("__kiln_scratch"), 0u);
      EXPECT_EQ(n->output(0)->name(), "twice_out");
    }
    if (n->op_type() == "Split") annotated_split = !n->name().empty() && n->annotations().count("kiln.note");
    EXPECT_NE(n->op_type(), "Holder");
  }
  EXPECT_TRUE(found_call);
  EXPECT_TRUE(annotated_split);
  EXPECT_EQ(m->graph().FindValue("y")->annotations().at("kiln.memory"), "hbm");
  EXPECT_EQ(m->graph().FindValue("unused_weight"), nullptr);
  EXPECT_EQ(m->graph().outputs().size(), 4u);
  EXPECT_EQ(m->graph().inputs().size(), 2u);
  bool built_by = false, author = false;
  for (const auto& [k, v] : m->metadata_props) built_by |= k == "built_by" && v == "abi12", author |= k == "author";
  EXPECT_TRUE(built_by);
  EXPECT_FALSE(author);
  // It still runs: z = Max(2 * Twice(x), x) with Twice(x) = (x + x) * 0.5, w = -sqrt(y).
  KernelRegistry kernels;
  RegisterBuiltinKernels(kernels);
  auto f = [](std::vector<float> v) {
    OutputTensor o = AllocateTensor(DataType::kFloat, {2});
    std::memcpy(o.data, v.data(), 8);
    return RtValue::Of(o.tensor);
  };
  auto out = Executor(*m, kernels).Run({f({1, -2}), f({4, 9})});
  auto z = out[0].tensor->values<float>();
  EXPECT_EQ(std::vector<float>(z.begin(), z.end()), (std::vector<float>{2, -2}));
  auto w = out[1].tensor->values<float>();
  EXPECT_EQ(std::vector<float>(w.begin(), w.end()), (std::vector<float>{-2, -3}));
}

TEST_F(Abi12Slots, AFailingPassIsRolledBackFunctionsIncluded) {
  KilnRun r = Compile("fail", "failed.onnx");
  ASSERT_EQ(r.rc, 0) << r.output;
  EXPECT_NE(r.output.find("fails on purpose"), std::string::npos) << r.output;
  EXPECT_EQ(Slurp(dir_ / "failed.onnx"), Slurp(model_));  // no function, metadata or call left
  r = Compile("fail", "strict.onnx", "--strict");
  EXPECT_EQ(r.rc, 4) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "strict.onnx"));
}

}  // namespace
}  // namespace kiln::testing
