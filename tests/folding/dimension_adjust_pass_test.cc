// DimensionAdjustPass: Squeeze/Unsqueeze/Reshape whose effect is already in the shape become a bypass.
#include <gtest/gtest.h>

#include "folding_test_util.h"

namespace kiln::testing {
namespace {

constexpr const char* kHeader = R"(<ir_version: 8, opset_import: ["" : 17]>)";

TEST(DimensionAdjustPassTest, ReshapeToTheSameShapeIsBypassed) {
  auto m = ParseModel(std::string(kHeader) + R"(
    g (float[N,4] x) => (float[N,4] y) {
      s = Constant <value = int64[2] {0, 4}> ()
      r = Reshape (x, s)
      y = Relu (r)
    })");
  ASSERT_TRUE(m);
  PassRun run = RunPasses(*m, {"InferShapePass", "DimensionAdjustPass"});
  EXPECT_EQ(Counter(run, "DimensionAdjustPass", "nodes_bypassed"), 1);
  EXPECT_EQ(CountOps(*m, "Reshape"), 0u) << PrintGraph(*m);
  EXPECT_EQ(CountOps(*m, "Constant"), 0u);
  EXPECT_EQ(NodeCount(*m), 1u);
}

TEST(DimensionAdjustPassTest, ChangesNothingWhenTheShapeChanges) {
  auto m = ParseModel(std::string(kHeader) + R"(
    g (float[N,4] x) => (float[N,4,1] y) {
      a = Constant <value = int64[1] {2}> ()
      u = Unsqueeze (x, a)
      y = Relu (u)
    })");
  ASSERT_TRUE(m);
  PassRun run = RunPasses(*m, {"InferShapePass", "DimensionAdjustPass"});
  EXPECT_EQ(Counter(run, "DimensionAdjustPass", "nodes_bypassed"), 0);
  EXPECT_EQ(CountOps(*m, "Unsqueeze"), 1u);
}

}  // namespace
}  // namespace kiln::testing
