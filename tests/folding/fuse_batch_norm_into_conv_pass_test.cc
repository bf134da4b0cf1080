// FuseBatchNormIntoConvPass: golden tests (ONNX text before and after) and graphs it leaves alone. The numbers
// are chosen so that f = scale / sqrt(var + epsilon) is exact: epsilon 1, var {3, 8}, scale {4, 3} -> f {2, 1}.
#include <gtest/gtest.h>

#include "folding_test_util.h"

#include <cmath>
#include <string>
#include <vector>

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
  EXPECT_EQ(run.computed, (std::set<std::string>{conv->input(1)->name()})) << "W' is made when the model is written";
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

// Each weight of every channel is its own product, rounded once from double, in the vectorised body and in the
// remainder alike: 19 weights a channel (not a multiple of any vector width), distinct values, and factors that
// are not exact in float.
TEST(FuseBatchNormIntoConvPass, ScalesEveryWeightOfEveryChannelOnce) {
  constexpr int kOut = 3, kPer = 19;
  std::vector<float> w(kOut * kPer);
  std::string literal;
  for (size_t i = 0; i < w.size(); ++i) {
    w[i] = static_cast<float>(i) * 0.37f - 5.f;
    literal += (i ? ", " : "") + std::to_string(w[i]);
    w[i] = std::stof(std::to_string(w[i]));  // what the text form holds
  }
  const float scale[kOut] = {0.7f, 1.3f, -2.1f}, var[kOut] = {0.3f, 2.f, 5.5f};
  auto m = ParseModel(M(R"(g (float[1,19,2,2] x) => (float[1,3,2,2] y) {
    w = Constant <value = float[3,19,1,1] {)" + literal + R"(}> ()
    s = Constant <value = float[3] {0.7, 1.3, -2.1}> ()
    sh = Constant <value = float[3] {0, 0, 0}> ()
    mu = Constant <value = float[3] {0, 0, 0}> ()
    v = Constant <value = float[3] {0.3, 2, 5.5}> ()
    z = Conv(x, w)
    t = BatchNormalization <epsilon = 0.001> (z, s, sh, mu, v)
    y = Relu(t)
  })"));
  ASSERT_TRUE(m);
  EXPECT_TRUE(RunPasses(*m, {kPass}).changed());
  const Node* conv = nullptr;
  for (const auto& n : m->graph().nodes())
    if (!n->is_deleted() && n->op_type() == "Conv") conv = n.get();
  ASSERT_NE(conv, nullptr);
  const std::vector<float> got = ConstValues<float>(*m, conv->input(1)->name());
  ASSERT_EQ(got.size(), w.size());
  for (int c = 0; c < kOut; ++c) {
    const double f = static_cast<double>(scale[c]) / std::sqrt(static_cast<double>(var[c]) + 0.001f);
    for (int k = 0; k < kPer; ++k) {
      const size_t i = static_cast<size_t>(c * kPer + k);
      EXPECT_EQ(got[i], static_cast<float>(static_cast<double>(w[i]) * f)) << "channel " << c << ", weight " << k;
    }
  }
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
