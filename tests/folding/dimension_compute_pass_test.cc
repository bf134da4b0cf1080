// DimensionComputePass: Shape, Size and Gather(Shape) from known dimensions; the shape chain of exported models.
#include <gtest/gtest.h>

#include "folding_test_util.h"

namespace kiln::testing {
namespace {

constexpr const char* kHeader = R"(<ir_version: 8, opset_import: ["" : 17]>)";

// PyTorch's export of x.view(x.size(0), -1).
const char* kShapeChain = R"(
    g (float[BATCH,3,4] x) => (float[BATCH,12] y) {
      s = Shape (x)
      i0 = Constant <value = int64 {0}> ()
      d0 = Gather <axis = 0> (s, i0)
      a0 = Constant <value = int64[1] {0}> ()
      u0 = Unsqueeze (d0, a0)
      m1 = Constant <value = int64[1] {-1}> ()
      c = Concat <axis = 0> (u0, m1)
      y = Reshape (x, c)
    })";

std::string WithBatch(const std::string& batch) {
  std::string t = kShapeChain;
  for (size_t p; (p = t.find("BATCH")) != std::string::npos;) t.replace(p, 5, batch);
  return std::string(kHeader) + t;
}

TEST(DimensionComputePassTest, StaticShapeChainFoldsToAConstantShape) {
  auto m = ParseModel(WithBatch("2"));
  ASSERT_TRUE(m);
  PassRun run = RunPasses(*m, {"InferShapePass", "DimensionComputePass", "ConstantFoldingPass"});
  EXPECT_EQ(NodeCount(*m), 1u) << PrintGraph(*m);
  EXPECT_EQ(CountOps(*m, "Reshape"), 1u);
  Node* reshape = m->graph().nodes().front().get();
  ASSERT_TRUE(reshape->input(1)->initializer());
  auto shape = reshape->input(1)->initializer()->values<int64_t>();
  EXPECT_EQ(std::vector<int64_t>(shape.begin(), shape.end()), (std::vector<int64_t>{2, -1}));
  // Shape, Gather and Unsqueeze are computed from the inferred shape data; the Concat holding the literal -1 is
  // left to constant folding.
  EXPECT_EQ(Counter(run, "DimensionComputePass", "nodes_folded"), 3);
  // After (ONNX text; the printer of libonnx 1.12 leaves initializers out):
  EXPECT_EQ(PrintGraph(*m), "g (float[2,3,4] x) => (float[2,12] y) {\ny = Reshape(x, c_folded)\n}\n");
}

TEST(DimensionComputePassTest, SymbolicBatchKeepsOnlyTheDynamicPart) {
  auto m = ParseModel(std::string(kHeader) + R"(
    g (float[N,3,4] x) => (float[N,12] y) {
      s = Shape (x)
      i0 = Constant <value = int64 {0}> ()
      d0 = Gather <axis = 0> (s, i0)
      i1 = Constant <value = int64 {1}> ()
      d1 = Gather <axis = 0> (s, i1)
      i2 = Constant <value = int64 {2}> ()
      d2 = Gather <axis = 0> (s, i2)
      p = Mul (d1, d2)
      a0 = Constant <value = int64[1] {0}> ()
      u0 = Unsqueeze (d0, a0)
      a1 = Constant <value = int64[1] {0}> ()
      u1 = Unsqueeze (p, a1)
      c = Concat <axis = 0> (u0, u1)
      y = Reshape (x, c)
    })");
  ASSERT_TRUE(m);
  RunPasses(*m, {"InferShapePass", "DimensionComputePass", "ConstantFoldingPass"});
  // Left: Shape -> Gather(0) -> Unsqueeze -> Concat(., [12]) -> Reshape.
  EXPECT_EQ(CountOps(*m, "Shape"), 1u) << PrintGraph(*m);
  EXPECT_EQ(CountOps(*m, "Gather"), 1u);
  EXPECT_EQ(CountOps(*m, "Mul"), 0u);
  EXPECT_EQ(CountOps(*m, "Unsqueeze"), 1u);
  EXPECT_EQ(CountOps(*m, "Concat"), 1u);
  EXPECT_EQ(NodeCount(*m) - CountOps(*m, "Constant"), 5u) << PrintGraph(*m);
}

TEST(DimensionComputePassTest, SizeOfStaticInput) {
  auto m = ParseModel(std::string(kHeader) + R"(
    g (float[2,3] x) => (int64 y) {
      y = Size (x)
    })");
  ASSERT_TRUE(m);
  RunPasses(*m, {"DimensionComputePass"});
  EXPECT_EQ(NodeCount(*m), 0u);
  EXPECT_EQ(ConstValues<int64_t>(*m, "y"), (std::vector<int64_t>{6}));
}

TEST(DimensionComputePassTest, NeedFoldFalseOnlyMarksAndMarksNeverLeak) {
  auto m = ParseModel(std::string(kHeader) + R"(
    g (float[2,3] x) => (int64[2] y) {
      y = Shape (x)
    })");
  ASSERT_TRUE(m);
  PassRun run = RunPasses(*m, {"DimensionComputePass{need_fold: false}"});
  EXPECT_EQ(Counter(run, "DimensionComputePass", "nodes_marked"), 1);
  EXPECT_EQ(CountOps(*m, "Shape"), 1u);
  ASSERT_TRUE(m->graph().nodes().front()->FindAttribute("__kiln_is_potential_const"));
  std::string printed = PrintGraph(*m);
  EXPECT_EQ(printed.find("__kiln_"), std::string::npos) << printed;
}

TEST(DimensionComputePassTest, ChangesNothingOnSymbolicShapes) {
  auto m = ParseModel(std::string(kHeader) + R"(
    g (float[N,3] x) => (int64[2] y, int64 z) {
      y = Shape (x)
      z = Size (x)
    })");
  ASSERT_TRUE(m);
  PassRun run = RunPasses(*m, {"DimensionComputePass"});
  EXPECT_FALSE(run.changed());
  EXPECT_EQ(NodeCount(*m), 2u);
}

}  // namespace
}  // namespace kiln::testing
