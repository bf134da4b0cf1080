// ReshapeShapeChainPass: golden tests (ONNX text before and after) and graphs it leaves alone.
#include <gtest/gtest.h>

#include "folding_test_util.h"

namespace kiln {
namespace {

using kiln::testing::Canonical;
using kiln::testing::ConstValues;
using kiln::testing::Counter;
using kiln::testing::ParseModel;
using kiln::testing::PrintGraph;
using kiln::testing::RunPasses;

constexpr const char* kPass = "ReshapeShapeChainPass";

std::string M(const std::string& graph) { return "<ir_version: 8, opset_import: [\"\" : 17]>\n" + graph; }

// The values of the Reshape's target in a model with a single Reshape.
std::vector<int64_t> Target(const Model& m) {
  for (const auto& n : m.graph().nodes())
    if (!n->is_deleted() && n->op_type() == "Reshape") return kiln::testing::ConstValues<int64_t>(m, n->input(1)->name());
  return {};
}

TEST(ReshapeShapeChainPass, FlattenOfTheBatchBecomesZeroMinusOne) {
  // x.view(x.size(0), -1) on a symbolic batch, as exported before a classifier.
  auto m = ParseModel(M(R"(g (float[N,8,1,1] x) => (float[N,8] y) {
    s = Shape(x)
    i = Constant <value = int64 {0}> ()
    d = Gather <axis = 0> (s, i)
    a = Constant <value = int64[1] {0}> ()
    u = Unsqueeze(d, a)
    r = Constant <value = int64[1] {-1}> ()
    t = Concat <axis = 0> (u, r)
    y = Reshape(x, t)
  })"));
  ASSERT_TRUE(m);
  auto run = RunPasses(*m, {kPass, "DeadCodeEliminationPass"});
  EXPECT_TRUE(run.changed());
  EXPECT_EQ(Counter(run, kPass, "reshape_targets_made_constant"), 1);
  EXPECT_EQ(Target(*m), (std::vector<int64_t>{0, -1}));
  EXPECT_EQ(kiln::testing::NodeCount(*m), 1u);
}

TEST(ReshapeShapeChainPass, CopiesSeveralDimensionsAndKeepsTheConstantPieces) {
  // The attention split x.view(x.size(0), x.size(1), 2, 4), one piece a Gather with a one-element index and one a
  // negative index; pieces with several values.
  auto m = ParseModel(M(R"(g (float[N,S,8] x) => (float[N,S,2,4] y) {
    s = Shape(x)
    i0 = Constant <value = int64[1] {0}> ()
    d0 = Gather <axis = 0> (s, i0)
    i1 = Constant <value = int64 {-2}> ()
    g1 = Gather <axis = 0> (s, i1)
    a = Constant <value = int64[1] {0}> ()
    d1 = Unsqueeze(g1, a)
    r = Constant <value = int64[2] {2, 4}> ()
    t = Concat <axis = 0> (d0, d1, r)
    y = Reshape(x, t)
  })"));
  ASSERT_TRUE(m);
  EXPECT_TRUE(RunPasses(*m, {kPass, "DeadCodeEliminationPass"}).changed());
  EXPECT_EQ(Target(*m), (std::vector<int64_t>{0, 0, 2, 4}));
  EXPECT_EQ(kiln::testing::NodeCount(*m), 1u);
}

TEST(ReshapeShapeChainPass, ChangesNothingWhenTheCopiedDimensionIsNotTheSame) {
  // The shape of another tensor (y1); dimension 1 put at position 0 (y2); allowzero = 1, where 0 is a literal size
  // (y3); a piece computed at run time (y4); Shape with a start (y5).
  const std::string text = M(R"(g (float[N,M] x, float[N,M] w, int64[1] p) => (y1, y2, y3, y4, y5) {
    sw = Shape(w)
    s = Shape(x)
    i0 = Constant <value = int64 {0}> ()
    i1 = Constant <value = int64 {1}> ()
    a = Constant <value = int64[1] {0}> ()
    r = Constant <value = int64[1] {-1}> ()
    gw = Gather <axis = 0> (sw, i0)
    uw = Unsqueeze(gw, a)
    tw = Concat <axis = 0> (uw, r)
    y1 = Reshape(x, tw)
    g1 = Gather <axis = 0> (s, i1)
    u1 = Unsqueeze(g1, a)
    t1 = Concat <axis = 0> (u1, r)
    y2 = Reshape(x, t1)
    g0 = Gather <axis = 0> (s, i0)
    u0 = Unsqueeze(g0, a)
    t0 = Concat <axis = 0> (u0, r)
    y3 = Reshape <allowzero = 1> (x, t0)
    t4 = Concat <axis = 0> (u0, p)
    y4 = Reshape(x, t4)
    s5 = Shape <start = 0> (x)
    g5 = Gather <axis = 0> (s5, i0)
    u5 = Unsqueeze(g5, a)
    t5 = Concat <axis = 0> (u5, r)
    y5 = Reshape(x, t5)
  })");
  auto m = ParseModel(text);
  ASSERT_TRUE(m);
  EXPECT_FALSE(RunPasses(*m, {kPass}).changed());
  EXPECT_EQ(PrintGraph(*m), Canonical(text));
}

}  // namespace
}  // namespace kiln
