// TransposePairMergePass: golden tests (ONNX text before and after) and a graph it leaves alone.
#include <gtest/gtest.h>

#include "folding_test_util.h"

namespace kiln {
namespace {

using kiln::testing::Canonical;
using kiln::testing::Counter;
using kiln::testing::ParseModel;
using kiln::testing::PrintGraph;
using kiln::testing::RunPasses;

constexpr const char* kPass = "TransposePairMergePass";

std::string M(const std::string& graph) { return "<ir_version: 8, opset_import: [\"\" : 17]>\n" + graph; }

TEST(TransposePairMergePass, ComposesThePermutations) {
  // t_j = x_{p1[j]}, y_j = t_{p2[j]} = x_{p1[p2[j]]}: p1 = [1,2,0], p2 = [0,2,1] -> [1,0,2]
  auto m = ParseModel(M(R"(g (float[2,3,4] x) => (float[3,2,4] y) {
    t = Transpose <perm = [1, 2, 0]> (x)
    y = Transpose <perm = [0, 2, 1]> (t)
  })"));
  ASSERT_TRUE(m);
  auto run = RunPasses(*m, {kPass});
  EXPECT_TRUE(run.changed());
  EXPECT_EQ(Counter(run, kPass, "transpose_pairs_merged"), 1);
  EXPECT_EQ(PrintGraph(*m), Canonical(M(R"(g (float[2,3,4] x) => (float[3,2,4] y) {
    y = Transpose <perm = [1, 0, 2]> (x)
  })")));
}

TEST(TransposePairMergePass, RemovesAPairThatCancels) {
  // The default perm reverses; reversing twice is the identity. A chain of three collapses to one.
  auto m = ParseModel(M(R"(g (float[2,3] x, float[2,3,4] w) => (float[2,3] y, float[4,2,3] z) {
    t = Transpose(x)
    u = Transpose(t)
    y = Relu(u)
    a = Transpose <perm = [2, 0, 1]> (w)
    b = Transpose <perm = [1, 2, 0]> (a)
    z = Transpose <perm = [2, 0, 1]> (b)
  })"));
  ASSERT_TRUE(m);
  auto run = RunPasses(*m, {kPass});
  EXPECT_TRUE(run.changed());
  EXPECT_EQ(PrintGraph(*m), Canonical(M(R"(g (float[2,3] x, float[2,3,4] w) => (float[2,3] y, float[4,2,3] z) {
    y = Relu(x)
    z = Transpose <perm = [2, 0, 1]> (w)
  })")));
}

TEST(TransposePairMergePass, KeepsTheInnerTransposeWhenOthersReadIt) {
  auto m = ParseModel(M(R"(g (float[2,3] x) => (float[2,3] y, float[3,2] z) {
    t = Transpose <perm = [1, 0]> (x)
    u = Transpose <perm = [1, 0]> (t)
    y = Relu(u)
    z = Neg(t)
  })"));
  ASSERT_TRUE(m);
  EXPECT_TRUE(RunPasses(*m, {kPass}).changed());
  EXPECT_EQ(PrintGraph(*m), Canonical(M(R"(g (float[2,3] x) => (float[2,3] y, float[3,2] z) {
    t = Transpose <perm = [1, 0]> (x)
    y = Relu(x)
    z = Neg(t)
  })")));
}

TEST(TransposePairMergePass, ChangesNothingWithoutAPair) {
  const std::string text = M(R"(g (float[2,3] x) => (float[3,2] y) {
    t = Transpose <perm = [1, 0]> (x)
    r = Relu(t)
    y = Identity(r)
  })");
  auto m = ParseModel(text);
  ASSERT_TRUE(m);
  EXPECT_FALSE(RunPasses(*m, {kPass}).changed());
  EXPECT_EQ(PrintGraph(*m), Canonical(text));
}

}  // namespace
}  // namespace kiln
