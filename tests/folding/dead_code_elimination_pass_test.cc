// DeadCodeEliminationPass: golden tests (ONNX text before and after), subgraphs, and a graph it leaves alone.
#include <gtest/gtest.h>

#include "support/golden.h"
#include "support/pass_runner.h"

namespace kiln {
namespace {

using kiln::testing::Canonical;
using kiln::testing::ParseModel;
using kiln::testing::PrintGraph;
using kiln::testing::RunPasses;

std::string M(const std::string& graph) { return "<ir_version: 8, opset_import: [\"\" : 17]>\n" + graph; }

int64_t Counter(const kiln::testing::PassRun& run, const std::string& name) {
  for (const auto& st : run.report["stages"])
    for (const auto& p : st["passes"])
      if (p["name"] == "DeadCodeEliminationPass" && p.contains("counters") && p["counters"].contains(name))
        return p["counters"][name].get<int64_t>();
  return 0;
}

TEST(DeadCodeEliminationPass, RemovesNodesThatReachNoOutput) {
  auto m = ParseModel(M(R"(g (float[2] x) => (float[2] y) {
    a = Relu(x)
    b = Neg(a)
    c = Exp(b)
    k = Constant <value = float[2] {1.0, 2.0}> ()
    d = Add(c, k)
    y = Sigmoid(a)
  })"));
  ASSERT_TRUE(m);
  auto run = RunPasses(*m, {"DeadCodeEliminationPass"});
  EXPECT_TRUE(run.changed());
  EXPECT_EQ(Counter(run, "nodes_removed"), 4);
  EXPECT_EQ(PrintGraph(*m), Canonical(M(R"(g (float[2] x) => (float[2] y) {
    a = Relu(x)
    y = Sigmoid(a)
  })")));
}

TEST(DeadCodeEliminationPass, DropsInitializersOnlyDeadNodesRead) {
  auto m = ParseModel(M(R"(g (float[2] x) => (float[2] y) <float[2] w = {1.0, 2.0}, float[2] v = {3.0, 4.0}> {
    d = Add(x, w)
    y = Mul(x, v)
  })"));
  ASSERT_TRUE(m);
  EXPECT_TRUE(RunPasses(*m, {"DeadCodeEliminationPass"}).changed());
  EXPECT_EQ(PrintGraph(*m), Canonical(M(R"(g (float[2] x) => (float[2] y) <float[2] v = {3.0, 4.0}> {
    y = Mul(x, v)
  })")));
}

TEST(DeadCodeEliminationPass, KeepsDeclaredInputsAndOutputs) {
  // The unused input stays declared; an output that is an input stays; a dead node reading it goes.
  auto m = ParseModel(M(R"(g (float[2] x, float[2] unused) => (float[2] y, float[2] x2) {
    d = Neg(unused)
    y = Relu(x)
    x2 = Identity(x)
  })"));
  ASSERT_TRUE(m);
  auto run = RunPasses(*m, {"DeadCodeEliminationPass"});
  EXPECT_TRUE(run.changed());
  EXPECT_EQ(PrintGraph(*m), Canonical(M(R"(g (float[2] x, float[2] unused) => (float[2] y, float[2] x2) {
    y = Relu(x)
    x2 = Identity(x)
  })")));
}

TEST(DeadCodeEliminationPass, RemovesDeadNodesInsideSubgraphsAndWhatOnlyTheyRead) {
  // `o` is read only by a dead node of the then-branch: once that goes, `o` is dead too. `k` is read by the
  // live else-branch and stays.
  auto m = ParseModel(M(R"(g (bool c, float[2] x) => (float[2] y) {
    o = Neg(x)
    k = Abs(x)
    y = If(c) <then_branch = t () => (float[2] ty) { d = Abs(o) ty = Relu(x) },
                else_branch = e () => (float[2] ey) { ey = Exp(k) }>
  })"));
  ASSERT_TRUE(m);
  auto run = RunPasses(*m, {"DeadCodeEliminationPass"});
  EXPECT_TRUE(run.changed());
  EXPECT_EQ(Counter(run, "nodes_removed"), 2);
  EXPECT_EQ(PrintGraph(*m), Canonical(M(R"(g (bool c, float[2] x) => (float[2] y) {
    k = Abs(x)
    y = If(c) <then_branch = t () => (float[2] ty) { ty = Relu(x) },
                else_branch = e () => (float[2] ey) { ey = Exp(k) }>
  })")));
}

TEST(DeadCodeEliminationPass, ADeadIfGoesWithItsSubgraphs) {
  auto m = ParseModel(M(R"(g (bool c, float[2] x) => (float[2] y) {
    o = Neg(x)
    z = If(c) <then_branch = t () => (float[2] ty) { ty = Relu(o) },
                else_branch = e () => (float[2] ey) { ey = Exp(o) }>
    y = Abs(x)
  })"));
  ASSERT_TRUE(m);
  auto run = RunPasses(*m, {"DeadCodeEliminationPass"});
  EXPECT_TRUE(run.changed());
  EXPECT_EQ(PrintGraph(*m), Canonical(M(R"(g (bool c, float[2] x) => (float[2] y) {
    y = Abs(x)
  })")));
}

TEST(DeadCodeEliminationPass, ChangesNothingWhenEveryNodeIsLive) {
  const std::string text = M(R"(g (bool c, float[2] x) => (float[2] y, float[2] z) {
    a = Relu(x)
    z = Neg(a)
    y = If(c) <then_branch = t () => (float[2] ty) { ty = Relu(a) },
                else_branch = e () => (float[2] ey) { ey = Exp(x) }>
  })");
  auto m = ParseModel(text);
  ASSERT_TRUE(m);
  auto run = RunPasses(*m, {"DeadCodeEliminationPass"});
  EXPECT_FALSE(run.changed());
  EXPECT_EQ(PrintGraph(*m), Canonical(text));
}

}  // namespace
}  // namespace kiln
