// ReplaceWithEmptyConstPass: nodes whose outputs are all empty become empty constants.
#include <gtest/gtest.h>

#include "folding_test_util.h"

namespace kiln::testing {
namespace {

constexpr const char* kHeader = R"(<ir_version: 8, opset_import: ["" : 17]>)";

TEST(ReplaceWithEmptyConstPassTest, EmptyOutputBecomesEmptyConstant) {
  auto m = ParseModel(std::string(kHeader) + R"(
    g (float[0,4] x, float[2,4] w) => (float[2,4] y) {
      r = Relu (x)
      y = Concat <axis = 0> (r, w)
    })");
  ASSERT_TRUE(m);
  PassRun run = RunPasses(*m, {"InferShapePass", "ReplaceWithEmptyConstPass"});
  EXPECT_EQ(Counter(run, "ReplaceWithEmptyConstPass", "nodes_replaced"), 1);
  EXPECT_EQ(CountOps(*m, "Relu"), 0u);
  Node* concat = nullptr;
  for (auto& n : m->graph().nodes())
    if (n->op_type() == "Concat") concat = n.get();
  ASSERT_TRUE(concat);
  ASSERT_TRUE(concat->input(0)->initializer());
  EXPECT_EQ(concat->input(0)->initializer()->dims(), (std::vector<int64_t>{0, 4}));
}

TEST(ReplaceWithEmptyConstPassTest, GraphOutputsAreKept) {
  auto m = ParseModel(std::string(kHeader) + R"(
    g (float[0,4] x) => (float[0,4] y) {
      y = Relu (x)
    })");
  ASSERT_TRUE(m);
  PassRun run = RunPasses(*m, {"ReplaceWithEmptyConstPass"});
  EXPECT_FALSE(run.changed());
}

TEST(ReplaceWithEmptyConstPassTest, ChangesNothingOnNonEmptyTensors) {
  auto m = ParseModel(std::string(kHeader) + R"(
    g (float[2,4] x) => (float[2,4] y) {
      r = Relu (x)
      y = Neg (r)
    })");
  ASSERT_TRUE(m);
  RunPasses(*m, {"InferShapePass"});
  PassRun run = RunPasses(*m, {"ReplaceWithEmptyConstPass"});
  EXPECT_FALSE(run.changed());
}

}  // namespace
}  // namespace kiln::testing
