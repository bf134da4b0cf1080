// TransposeGemmFoldPass: goldens for Gemm's and MatMul's operands, the graphs it leaves alone (batched MatMul,
// shared or constant Transposes, graph outputs, old opsets), and the reference executor computing the same outputs.
#include <gtest/gtest.h>

#include "folding_test_util.h"
#include "fusion/fusion_test_util.h"

namespace kiln {
namespace {

using kiln::testing::Canonical;
using kiln::testing::Counter;
using kiln::testing::Execute;
using kiln::testing::ParseModel;
using kiln::testing::PrintGraph;
using kiln::testing::RunPasses;
using kiln::testing::SameOutputs;

constexpr const char* kPass = "TransposeGemmFoldPass";

std::string M(const std::string& graph, int opset = 17) {
  return "<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + "]>\n" + graph;
}

void ExpectFold(const std::string& before, const std::string& after, int64_t folded) {
  auto m = ParseModel(before);
  ASSERT_TRUE(m);
  const auto expected = Execute(*m);
  auto run = RunPasses(*m, {"InferShapePass", kPass});
  EXPECT_EQ(Counter(run, kPass, "transposes_folded"), folded);
  EXPECT_EQ(PrintGraph(*m), Canonical(after));
  EXPECT_TRUE(SameOutputs(expected, Execute(*m)));
}

void ExpectNoChange(const std::string& text) {
  auto m = ParseModel(text);
  ASSERT_TRUE(m);
  RunPasses(*m, {"InferShapePass"});
  const std::string before = PrintGraph(*m);
  auto run = RunPasses(*m, {kPass});
  EXPECT_EQ(Counter(run, kPass, "transposes_folded"), 0);
  EXPECT_EQ(PrintGraph(*m), before);
}

TEST(TransposeGemmFoldPass, GemmTogglesTheFlagOfEachTransposedOperand) {
  ExpectFold(M(R"(g (float[3,2] a, float[3,4] b, float[4] c) => (float[2,4] y) {
    ta = Transpose <perm = [1, 0]> (a)
    tb = Transpose(b)
    y = Gemm <transB = 1, alpha = 0.5> (ta, tb, c)
  })"),
             M(R"(g (float[3,2] a, float[3,4] b, float[4] c) => (float[2,4] y) {
    y = Gemm <transB = 0, alpha = 0.5, transA = 1> (a, b, c)
  })"),
             2);
}

TEST(TransposeGemmFoldPass, AMatMulOfATransposedMatrixBecomesGemm) {
  ExpectFold(M(R"(g (float[2,3] a, float[4,3] b) => (float[2,4] y) {
    tb = Transpose <perm = [1, 0]> (b)
    m = MatMul(a, tb)
    y = Relu(m)
  })"),
             M(R"(g (float[2,3] a, float[4,3] b) => (float[2,4] y) {
    m = Gemm <transB = 1> (a, b)
    y = Relu(m)
  })"),
             1);
}

TEST(TransposeGemmFoldPass, ChangesNothingWhereTheFlagCannotSayIt) {
  // A batched MatMul (no flag in ONNX), a Transpose read twice, a constant operand (folding's), a MatMul writing a
  // graph output, a perm that is not [1, 0], and opset 9 (Gemm needs C there).
  ExpectNoChange(M(R"(g (float[2,3,4] a, float[2,5,4] b) => (float[2,3,5] y) {
    tb = Transpose <perm = [0, 2, 1]> (b)
    y = MatMul(a, tb)
  })"));
  ExpectNoChange(M(R"(g (float[2,3] a, float[4,3] b) => (float[2,4] y, float[3,4] t) {
    t = Transpose(b)
    y = MatMul(a, t)
  })"));
  ExpectNoChange(M(R"(g (float[2,3] a) => (float[2,4] y) <float[4,3] b = {1,2,3,4,5,6,7,8,9,10,11,12}> {
    tb = Transpose(b)
    m = MatMul(a, tb)
    y = Relu(m)
  })"));
  ExpectNoChange(M(R"(g (float[2,3] a, float[4,3] b) => (float[2,4] y) {
    tb = Transpose(b)
    y = MatMul(a, tb)
  })"));
  ExpectNoChange(M(R"(g (float[2,3] a, float[4,3] b) => (float[2,4] y) {
    tb = Transpose(b)
    m = MatMul(a, tb)
    y = Relu(m)
  })",
                   9));
}

}  // namespace
}  // namespace kiln
