// ReshapeChainMergePass: golden tests (ONNX text before and after) and graphs it leaves alone.
#include <gtest/gtest.h>

#include "folding_test_util.h"

namespace kiln {
namespace {

using kiln::testing::Canonical;
using kiln::testing::Counter;
using kiln::testing::ParseModel;
using kiln::testing::PrintGraph;
using kiln::testing::RunPasses;

constexpr const char* kPass = "ReshapeChainMergePass";

std::string M(const std::string& graph) { return "<ir_version: 8, opset_import: [\"\" : 17]>\n" + graph; }

TEST(ReshapeChainMergePass, ReshapesTheOriginalDirectly) {
  // -1 refers to the element count, which x and the intermediate share.
  auto m = ParseModel(M(R"(g (float[2,3,4] x) => (float[4,6] y) {
    s1 = Constant <value = int64[2] {6, 4}> ()
    t = Reshape(x, s1)
    s2 = Constant <value = int64[2] {4, -1}> ()
    y = Reshape(t, s2)
  })"));
  ASSERT_TRUE(m);
  auto run = RunPasses(*m, {kPass});
  EXPECT_TRUE(run.changed());
  EXPECT_EQ(Counter(run, kPass, "reshapes_merged"), 1);
  EXPECT_EQ(PrintGraph(*m), Canonical(M(R"(g (float[2,3,4] x) => (float[4,6] y) {
    s2 = Constant <value = int64[2] {4, -1}> ()
    y = Reshape(x, s2)
  })")));
}

TEST(ReshapeChainMergePass, MergesAChainWhoseFirstShapeIsNotConstant) {
  // Only the last target must be constant; a chain of three collapses.
  auto m = ParseModel(M(R"(g (float[2,3,4] x, int64[2] s1) => (float[24] y) {
    t = Reshape(x, s1)
    s2 = Constant <value = int64[3] {4, 3, 2}> ()
    u = Reshape(t, s2)
    s3 = Constant <value = int64[1] {24}> ()
    y = Reshape(u, s3)
  })"));
  ASSERT_TRUE(m);
  EXPECT_TRUE(RunPasses(*m, {kPass}).changed());
  EXPECT_EQ(PrintGraph(*m), Canonical(M(R"(g (float[2,3,4] x, int64[2] s1) => (float[24] y) {
    s3 = Constant <value = int64[1] {24}> ()
    y = Reshape(x, s3)
  })")));
}

TEST(ReshapeChainMergePass, ChangesNothingWhenTheTargetCopiesAnUnknownDimension) {
  // A 0 in the outer target copies the intermediate's dimension, which is not known here; a target computed at
  // run time; a single Reshape.
  const std::string text = M(R"(g (float[2,3,4] x, int64[2] s) => (y, z, w) {
    s1 = Constant <value = int64[2] {6, 4}> ()
    t = Reshape(x, s1)
    s2 = Constant <value = int64[2] {0, -1}> ()
    y = Reshape(t, s2)
    z = Reshape(t, s)
    w = Reshape(x, s1)
  })");
  auto m = ParseModel(text);
  ASSERT_TRUE(m);
  EXPECT_FALSE(RunPasses(*m, {kPass}).changed());
  EXPECT_EQ(PrintGraph(*m), Canonical(text));
}

}  // namespace
}  // namespace kiln
