// PotentialConstTakenEffectPass: marked potential constants fold after the walk, and what reads them follows.
#include <gtest/gtest.h>

#include "folding_test_util.h"

namespace kiln::testing {
namespace {

constexpr const char* kHeader = R"(<ir_version: 8, opset_import: ["" : 17]>)";

TEST(PotentialConstTakenEffectPassTest, PotentialConstantFoldsOnlyAfterTheWalk) {
  auto m = ParseModel(std::string(kHeader) + R"(
    g (float[2,3] x) => (int64[2] y) {
      y = Shape (x)
    })");
  ASSERT_TRUE(m);
  PassRun run = RunPasses(*m, {"DimensionComputePass{need_fold: false}"}, {"PotentialConstTakenEffectPass"});
  EXPECT_EQ(Counter(run, "DimensionComputePass", "nodes_marked"), 1);
  EXPECT_EQ(Counter(run, "DimensionComputePass", "nodes_folded"), 0);
  EXPECT_EQ(Counter(run, "PotentialConstTakenEffectPass", "nodes_folded"), 1);
  EXPECT_EQ(NodeCount(*m), 0u);
  EXPECT_EQ(ConstValues<int64_t>(*m, "y"), (std::vector<int64_t>{2, 3}));
}

TEST(PotentialConstTakenEffectPassTest, ConsumersFoldThroughThePotentialValue) {
  auto m = ParseModel(std::string(kHeader) + R"(
    g (float[2,3] x) => (float[6] y) {
      s = Shape (x)
      p = ReduceProd <keepdims = 1> (s)
      y = Reshape (x, p)
    })");
  ASSERT_TRUE(m);
  PassRun run = RunPasses(*m, {"DimensionComputePass{need_fold: false}", "ConstantFoldingPass"},
                          {"PotentialConstTakenEffectPass"});
  EXPECT_EQ(CountOps(*m, "Shape"), 0u) << PrintGraph(*m);
  EXPECT_EQ(CountOps(*m, "ReduceProd"), 0u);
  EXPECT_EQ(NodeCount(*m), 1u);
}

TEST(PotentialConstTakenEffectPassTest, ChangesNothingWithoutMarks) {
  auto m = ParseModel(std::string(kHeader) + R"(
    g (float[N,3] x) => (int64[2] y) {
      y = Shape (x)
    })");
  ASSERT_TRUE(m);
  PassRun run = RunPasses(*m, {"DimensionComputePass{need_fold: false}"}, {"PotentialConstTakenEffectPass"});
  EXPECT_FALSE(run.changed());
}

}  // namespace
}  // namespace kiln::testing
