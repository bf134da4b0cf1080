// FuseBatchNormIntoConvPass: golden tests (ONNX text before and after) and graphs it leaves alone. The numbers
// are chosen so that f = scale / sqrt(var + epsilon) is exact: epsilon 1, var {3, 8}, scale {4, 3} -> f {2, 1}.
#include <gtest/gtest.h>

#include "folding_test_util.h"

namespace kiln {
namespace {

using kiln::testing::Canonical;
using kiln::testing::ConstValues;
using kiln::testing::CountOps;
using kiln::testing::Counter;
using kiln::testing::ParseModel;
using kiln::testing::PrintGraph;
using kiln::testing::RunPasses;

constexpr const char* kPass = "FuseBatchNormIntoConvPass";

std::string M(const std::string& graph) { return "<ir_version: 8, opset_import: [\"\" : 17]>\n" + graph; }

TEST(FuseBatchNormIntoConvPass, FoldsTheScaleIntoWeightsAndBias) {
  // W' = W * f per output channel; b' = (b - mean) * f + B = {(1 - 1) * 2 + 0.5, (1 - 3) * 1 + 0} = {0.5, -2}.
  auto m = ParseModel(M(R"(g (float[1,2,3,3] x) => (float[1,2,3,3] y) {
    w = Constant <value = float[2,2,1,1] {1, 2, 3, 4}> ()
    b = Constant <value = float[2] {1, 1}> ()
    s = Constant <value = float[2] {4, 3}> ()
    sh = Constant <value = float[2] {0.5, 0}> ()
    mu = Constant <value = float[2] {1, 3}> ()
    v = Constant <value = float[2] {3, 8}> ()
    z = Conv(x, w, b)
    t = BatchNormalization <epsilon = 1.0> (z, s, sh, mu, v)
    y = Relu(t)
  })"));
  ASSERT_TRUE(m);
  auto run = RunPasses(*m, {kPass});
  EXPECT_TRUE(run.changed());
  EXPECT_EQ(Counter(run, kPass, "batch_norms_fused"), 1);
  EXPECT_EQ(CountOps(*m, "BatchNormalization"), 0u);
  const Node* conv = nullptr;
  for (const auto& n : m->graph().nodes())
    if (!n->is_deleted() && n->op_type() == "Conv") conv = n.get();
  ASSERT_NE(conv, nullptr);
  ASSERT_EQ(conv->num_inputs(), 3u);
  EXPECT_EQ(ConstValues<float>(*m, conv->input(1)->name()), (std::vector<float>{2, 4, 3, 4}));
  EXPECT_EQ(ConstValues<float>(*m, conv->input(2)->name()), (std::vector<float>{0.5f, -2}));
  // The new constants take fresh names; the old ones, unread, are gone.
  EXPECT_EQ(PrintGraph(*m), Canonical(M(R"(g (float[1,2,3,3] x) => (float[1,2,3,3] y)
      <float[2,2,1,1] const = {2, 4, 3, 4}, float[2] const__1 = {0.5, -2}> {
    z = Conv(x, const, const__1)
    y = Relu(z)
  })")));
}

TEST(FuseBatchNormIntoConvPass, GivesABiasToAConvWithout) {
  // b' = (0 - mean) * f + B = {-1 * 2 + 0.5, -3 * 1 + 0} = {-1.5, -3}.
  auto m = ParseModel(M(R"(g (float[1,2,3,3] x) => (float[1,2,2,2] y) {
    w = Constant <value = float[2,2,2,2] {1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2}> ()
    s = Constant <value = float[2] {4, 3}> ()
    sh = Constant <value = float[2] {0.5, 0}> ()
    mu = Constant <value = float[2] {1, 3}> ()
    v = Constant <value = float[2] {3, 8}> ()
    z = Conv <kernel_shape = [2, 2]> (x, w)
    t = BatchNormalization <epsilon = 1.0> (z, s, sh, mu, v)
    y = Relu(t)
  })"));
  ASSERT_TRUE(m);
  EXPECT_TRUE(RunPasses(*m, {kPass}).changed());
  EXPECT_EQ(CountOps(*m, "BatchNormalization"), 0u);
  const Node* conv = nullptr;
  for (const auto& n : m->graph().nodes())
    if (!n->is_deleted() && n->op_type() == "Conv") conv = n.get();
  ASSERT_NE(conv, nullptr);
  ASSERT_EQ(conv->num_inputs(), 3u);
  EXPECT_EQ(ConstValues<float>(*m, conv->input(1)->name()),
            (std::vector<float>{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}));
  EXPECT_EQ(ConstValues<float>(*m, conv->input(2)->name()), (std::vector<float>{-1.5f, -3}));
}

TEST(FuseBatchNormIntoConvPass, ChangesNothingOutsideTheInferenceConvForm) {
  // BN output is a graph output (y1); the Conv output is also read elsewhere (z2 by Relu); the scale is computed
  // (s3 is a graph input); training mode (t4); a double Conv (y5).
  const std::string text = M(R"(g (float[1,2,3,3] x, float[2] s3, double[1,2,3,3] xd) => (y1, r2, y2, y3, y4, y5) {
    w = Constant <value = float[2,2,1,1] {1, 2, 3, 4}> ()
    s = Constant <value = float[2] {4, 3}> ()
    sh = Constant <value = float[2] {0.5, 0}> ()
    mu = Constant <value = float[2] {1, 3}> ()
    v = Constant <value = float[2] {3, 8}> ()
    z1 = Conv(x, w)
    y1 = BatchNormalization(z1, s, sh, mu, v)
    z2 = Conv(x, w)
    r2 = Relu(z2)
    t2 = BatchNormalization(z2, s, sh, mu, v)
    y2 = Relu(t2)
    z3 = Conv(x, w)
    t3 = BatchNormalization(z3, s3, sh, mu, v)
    y3 = Relu(t3)
    z4 = Conv(x, w)
    t4, m4, v4 = BatchNormalization <training_mode = 1> (z4, s, sh, mu, v)
    y4 = Relu(t4)
    wd = Constant <value = double[2,2,1,1] {1, 2, 3, 4}> ()
    sd = Constant <value = double[2] {4, 3}> ()
    zd = Conv(xd, wd)
    t5 = BatchNormalization(zd, sd, sd, sd, sd)
    y5 = Relu(t5)
  })");
  auto m = ParseModel(text);
  ASSERT_TRUE(m);
  EXPECT_FALSE(RunPasses(*m, {kPass}).changed());
  EXPECT_EQ(PrintGraph(*m), Canonical(text));
}

}  // namespace
}  // namespace kiln
