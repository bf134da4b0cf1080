// The analyses on large graphs: a 100,000-node chain of small diamonds (depth ~67,000 in both trees) and a chain
// whose leaves read far up the dominator tree (where climbing to a common ancestor one level at a time would be
// quadratic). Correctness only; the timings recorded as test properties are for reading, not asserted.
#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "analysis/convexity.h"
#include "analysis/dominators.h"
#include "analysis/reachability.h"
#include "analysis/topo_cache.h"
#include "analysis_test_util.h"

namespace kiln {
namespace {

using testing::M;
using testing::ParseModel;

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

TEST(AnalysisScale, AChainOfDiamonds) {
  auto m = ParseModel(M("g (float[2] x) => (float[2] y) { y = Identity(x) }"));
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  constexpr int kBlocks = 33334;  // three nodes each: 100,002 nodes with the Identity
  std::vector<Node*> a(kBlocks), b(kBlocks), c(kBlocks);
  Value* v = g.FindValue("x");
  for (int k = 0; k < kBlocks; ++k) {
    a[k] = g.AddNode("Relu", {v}, 1);
    b[k] = g.AddNode("Neg", {a[k]->output(0)}, 1);
    c[k] = g.AddNode("Add", {a[k]->output(0), b[k]->output(0)}, 1);
    v = c[k]->output(0);
  }
  Node* out = g.FindValue("y")->producer();
  out->SetInput(0, v);

  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(CachedTopoOrder(g).size(), static_cast<size_t>(3 * kBlocks + 1));
  RecordProperty("topo_order_ms", static_cast<int>(Seconds(t0) * 1000));
  auto t1 = std::chrono::steady_clock::now();
  EXPECT_EQ(ImmediateDominator(*c[kBlocks - 1]), a[kBlocks - 1]);
  RecordProperty("dominators_ms", static_cast<int>(Seconds(t1) * 1000));
  auto t2 = std::chrono::steady_clock::now();
  EXPECT_EQ(ImmediatePostDominator(*a[0]), c[0]);
  RecordProperty("post_dominators_ms", static_cast<int>(Seconds(t2) * 1000));
  auto t3 = std::chrono::steady_clock::now();
  EXPECT_TRUE(Reaches(*a[0], *out));
  RecordProperty("reaches_ms", static_cast<int>(Seconds(t3) * 1000));
  RecordProperty("all_analyses_ms", static_cast<int>(Seconds(t0) * 1000));

  for (int k : {0, 1, kBlocks / 2, kBlocks - 1}) {
    EXPECT_EQ(ImmediateDominator(*a[k]), k ? c[k - 1] : nullptr);
    EXPECT_EQ(ImmediateDominator(*b[k]), a[k]);
    EXPECT_EQ(ImmediatePostDominator(*b[k]), c[k]);
    EXPECT_EQ(ImmediatePostDominator(*c[k]), k + 1 < kBlocks ? a[k + 1] : out);
  }
  EXPECT_TRUE(Dominates(*a[0], *out));
  EXPECT_FALSE(Dominates(*b[0], *out));
  EXPECT_TRUE(PostDominates(*out, *a[0]));
  EXPECT_FALSE(PostDominates(*b[kBlocks - 1], *a[0]));
  EXPECT_FALSE(Reaches(*out, *a[0]));
  EXPECT_FALSE(Reaches(*b[0], *b[1]) && Reaches(*b[1], *b[0]));
  Node *outside = nullptr, *inside = nullptr;
  EXPECT_FALSE(IsConvex(g, {a[0], c[kBlocks - 1]}, &outside, &inside));
  EXPECT_TRUE(IsConvex(g, {a[kBlocks / 2], b[kBlocks / 2], c[kBlocks / 2]}));
}

TEST(AnalysisScale, LongReadsAcrossADeepTree) {
  // A chain c (the dominator tree is as deep as the chain) and a leaf z[i] reading c[i] and c[i / 2]: its
  // immediate dominator c[i / 2] is i / 2 levels up, which climbing one level at a time would pay for.
  auto m = ParseModel(M("g (float[2] x) => (float[2] y) { y = Identity(x) }"));
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  constexpr int kChain = 50000;
  std::vector<Node*> c(kChain), z(kChain);
  c[0] = g.AddNode("Relu", {g.FindValue("x")}, 1);
  for (int i = 1; i < kChain; ++i) c[i] = g.AddNode("Neg", {c[i - 1]->output(0)}, 1);
  for (int i = 0; i < kChain; ++i) z[i] = g.AddNode("Add", {c[i]->output(0), c[i / 2]->output(0)}, 1);
  g.FindValue("y")->producer()->SetInput(0, c[kChain - 1]->output(0));

  auto t0 = std::chrono::steady_clock::now();
  for (int i : {1, 2, 3, kChain / 2, kChain - 1}) EXPECT_EQ(ImmediateDominator(*z[i]), c[i / 2]) << i;
  EXPECT_EQ(ImmediatePostDominator(*c[kChain / 2]), nullptr);  // read by z[kChain / 2] too, a sink
  RecordProperty("all_analyses_ms", static_cast<int>(Seconds(t0) * 1000));
  EXPECT_TRUE(Dominates(*c[10], *z[kChain - 1]));
  EXPECT_FALSE(Dominates(*c[kChain / 2], *z[kChain - 1]));
  EXPECT_TRUE(Reaches(*c[0], *z[kChain - 1]));
  EXPECT_FALSE(Reaches(*z[0], *c[1]));
}

}  // namespace
}  // namespace kiln
