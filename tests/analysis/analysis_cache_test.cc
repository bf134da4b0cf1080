// The analysis cache (Graph::analysis_data): computed once per structure version, shared between the analyses
// that need the topological order, recomputed after a structural change (in the graph or inside one of its
// subgraphs, and after a roll-back), kept (the same object, not recomputed) for the kinds the running pass declares
// preserved in Model::preserved_analyses, and dropped by Model::CollectGarbage.
#include <gtest/gtest.h>
#include <kiln/kiln_plugin.h>

#include <algorithm>

#include "analysis/analysis_stats.h"
#include "analysis/dominators.h"
#include "analysis/reachability.h"
#include "analysis/topo_cache.h"
#include "analysis_test_util.h"
#include "ir/topo_order.h"

namespace kiln {
namespace {

using analysis_detail::kDominators;
using analysis_detail::kPostDominators;
using analysis_detail::kTopo;
using testing::M;
using testing::N;
using testing::ParseModel;

const char* kDiamond = R"(g (float[2] x) => (float[2] y) {
    a = Relu(x)
    b = Neg(a)
    c = Exp(a)
    y = Add(b, c)
  })";

// A chain with a node no one reads, for the tests that delete it.
const char* kWithDeadNode = R"(g (float[2] x) => (float[2] y) {
    a = Relu(x)
    dead = Neg(a)
    b = Exp(a)
    y = Abs(b)
  })";

const char* kChain = R"(g (float[2] x) => (float[2] y) {
    a = Relu(x)
    b = Neg(a)
    c = Exp(b)
    y = Abs(c)
  })";

TEST(AnalysisCache, ComputedOnceUntilTheStructureChanges) {
  auto m = ParseModel(M(kDiamond));
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  Node *a = N(g, "a"), *b = N(g, "b"), *y = N(g, "y");
  EXPECT_EQ(AnalysisComputations(g, kDominators), 0u);
  EXPECT_EQ(ImmediateDominator(*y), a);
  EXPECT_EQ(ImmediateDominator(*b), a);
  EXPECT_TRUE(Dominates(*a, *y));
  EXPECT_EQ(ImmediatePostDominator(*a), y);
  EXPECT_TRUE(Reaches(*a, *y));
  EXPECT_EQ(CachedTopoIndex(*y), 3);
  EXPECT_EQ(AnalysisComputations(g, kDominators), 1u);
  EXPECT_EQ(AnalysisComputations(g, kPostDominators), 1u);
  EXPECT_EQ(AnalysisComputations(g, kTopo), 1u);  // both trees and the search share one order

  // Changes that leave the edges alone keep everything.
  b->SetName("renamed");
  g.RenameValue(b->output(0), "b2");
  EXPECT_EQ(ImmediateDominator(*y), a);
  EXPECT_EQ(ImmediatePostDominator(*b), y);
  EXPECT_EQ(AnalysisComputations(g, kDominators), 1u);
  EXPECT_EQ(AnalysisComputations(g, kPostDominators), 1u);
  EXPECT_EQ(AnalysisComputations(g, kTopo), 1u);
}

TEST(AnalysisCache, RecomputesAfterANodeIsAddedOrRemoved) {
  auto m = ParseModel(M(kDiamond));
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  Node *b = N(g, "b"), *y = N(g, "y");
  EXPECT_EQ(ImmediatePostDominator(*b), y);
  Node* extra = g.AddNode("Neg", {b->output(0)}, 1);
  EXPECT_EQ(ImmediateDominator(*extra), b);
  EXPECT_EQ(ImmediatePostDominator(*b), nullptr);  // y, and extra that no one reads
  EXPECT_EQ(CachedTopoIndex(*extra), 4);
  EXPECT_EQ(AnalysisComputations(g, kDominators), 1u);
  EXPECT_EQ(AnalysisComputations(g, kPostDominators), 2u);
  EXPECT_EQ(AnalysisComputations(g, kTopo), 2u);

  g.RemoveNode(extra);
  EXPECT_EQ(ImmediatePostDominator(*b), y);
  EXPECT_EQ(CachedTopoOrder(g).size(), 4u);
  EXPECT_EQ(CachedTopoIndex(*extra), -1);
  EXPECT_EQ(AnalysisComputations(g, kPostDominators), 3u);
  EXPECT_EQ(AnalysisComputations(g, kTopo), 3u);
}

TEST(AnalysisCache, RecomputesAfterARollBack) {
  auto m = ParseModel(M(kDiamond));
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  Node *a = N(g, "a"), *b = N(g, "b"), *c = N(g, "c"), *y = N(g, "y");
  m->journal().Begin();
  y->SetInput(1, b->output(0));
  g.RemoveNode(c);
  EXPECT_EQ(ImmediateDominator(*y), b);
  m->journal().Rollback();
  EXPECT_EQ(ImmediateDominator(*y), a);
  EXPECT_EQ(ImmediateDominator(*c), a);
  EXPECT_EQ(CachedTopoOrder(g).size(), 4u);
}

TEST(AnalysisCache, KeptForTheKindsTheRunningPassPreserves) {
  auto m = ParseModel(M(kDiamond));
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  Node *a = N(g, "a"), *b = N(g, "b"), *c = N(g, "c"), *y = N(g, "y");
  m->preserved_analyses = KILN_ANALYSIS_DOMINATORS;
  EXPECT_EQ(ImmediateDominator(*y), a);
  EXPECT_EQ(ImmediatePostDominator(*c), y);
  const void* data = g.analysis_data().get();

  // y = Add(b, b) would have b as y's immediate dominator; the pass declared dominators preserved, so the tree
  // is kept as it was (a promise the pass made). The post-dominators and the order are recomputed.
  y->SetInput(1, b->output(0));
  EXPECT_EQ(ImmediateDominator(*y), a);
  EXPECT_EQ(AnalysisComputations(g, kDominators), 1u);
  EXPECT_EQ(g.analysis_data().get(), data);
  EXPECT_EQ(ImmediatePostDominator(*c), nullptr);  // c has no reader now
  EXPECT_EQ(AnalysisComputations(g, kPostDominators), 2u);
  EXPECT_EQ(AnalysisComputations(g, kTopo), 2u);

  // Once no pass preserves it, the next change recomputes it.
  m->preserved_analyses = 0;
  g.AddNode("Neg", {c->output(0)}, 1);
  EXPECT_EQ(ImmediateDominator(*y), b);
  EXPECT_EQ(AnalysisComputations(g, kDominators), 2u);
}

TEST(AnalysisCache, AKeptOrderDropsDeletedNodes) {
  auto m = ParseModel(M(kWithDeadNode));
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  Node *a = N(g, "a"), *dead = N(g, "dead"), *b = N(g, "b"), *y = N(g, "y");
  m->preserved_analyses = KILN_ANALYSIS_TOPO_ORDER;
  EXPECT_EQ(CachedTopoIndex(*b), 2);
  g.RemoveNode(dead);
  EXPECT_EQ(CachedTopoOrder(g), (std::vector<Node*>{a, b, y}));
  EXPECT_EQ(CachedTopoIndex(*b), 1);
  EXPECT_EQ(CachedTopoIndex(*dead), -1);
  EXPECT_EQ(AnalysisComputations(g, kTopo), 1u);
}

// The cached order is the listed one itself (one list, not a copy) until they differ: a kept order that dropped a
// deleted node holds its own, and the next order computed anew is the listed one again.
TEST(AnalysisCache, TheCachedOrderIsTheListedOneUntilTheyDiffer) {
  auto m = ParseModel(M(kWithDeadNode));
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  Node *a = N(g, "a"), *dead = N(g, "dead"), *b = N(g, "b"), *y = N(g, "y");
  EXPECT_EQ(&CachedTopoOrder(g), &ListedTopoOrder(g));
  m->preserved_analyses = KILN_ANALYSIS_TOPO_ORDER;
  g.RemoveNode(dead);
  EXPECT_EQ(ListedTopoOrder(g), (std::vector<Node*>{a, b, y}));  // sorted anew; the kept order keeps its nodes
  EXPECT_EQ(CachedTopoOrder(g), (std::vector<Node*>{a, b, y}));
  EXPECT_NE(&CachedTopoOrder(g), &ListedTopoOrder(g));
  EXPECT_EQ(CachedTopoIndex(*b), 1);
  EXPECT_EQ(AnalysisComputations(g, kTopo), 1u);
  m->preserved_analyses = 0;
  Node* extra = g.AddNode("Neg", {b->output(0)}, 1);
  EXPECT_EQ(CachedTopoOrder(g), (std::vector<Node*>{a, b, y, extra}));
  EXPECT_EQ(&CachedTopoOrder(g), &ListedTopoOrder(g));
  EXPECT_EQ(CachedTopoIndex(*extra), 3);
  EXPECT_EQ(AnalysisComputations(g, kTopo), 2u);
}

TEST(AnalysisCache, AKeptTreeSkipsDeletedNodes) {
  auto m = ParseModel(M(kChain));
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  Node *a = N(g, "a"), *b = N(g, "b"), *c = N(g, "c"), *y = N(g, "y");
  m->preserved_analyses = KILN_ANALYSIS_DOMINATORS | KILN_ANALYSIS_POST_DOMINATORS;
  EXPECT_EQ(ImmediateDominator(*c), b);
  EXPECT_EQ(ImmediatePostDominator(*a), b);
  c->SetInput(0, a->output(0));
  g.RemoveNode(b);
  // b's place in the kept trees goes to its own (post-)dominator.
  EXPECT_EQ(ImmediateDominator(*c), a);
  EXPECT_EQ(ImmediatePostDominator(*a), c);
  EXPECT_TRUE(Dominates(*a, *y));
  EXPECT_FALSE(Dominates(*b, *c));
  EXPECT_EQ(AnalysisComputations(g, kDominators), 1u);
  EXPECT_EQ(AnalysisComputations(g, kPostDominators), 1u);
}

TEST(AnalysisCache, AKeptResultIsRecomputedForANodeItDoesNotKnow) {
  auto m = ParseModel(M(kChain));
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  Node* b = N(g, "b");
  m->preserved_analyses = KILN_ANALYSIS_ALL;
  EXPECT_EQ(ImmediateDominator(*N(g, "c")), b);
  EXPECT_EQ(CachedTopoOrder(g).size(), 4u);
  Node* extra = g.AddNode("Neg", {b->output(0)}, 1);
  EXPECT_EQ(ImmediateDominator(*extra), b);
  EXPECT_EQ(CachedTopoIndex(*extra), 4);
  EXPECT_EQ(AnalysisComputations(g, kDominators), 2u);
  EXPECT_EQ(AnalysisComputations(g, kTopo), 2u);
}

TEST(AnalysisCache, AChangeInsideASubgraphInvalidatesTheEnclosingGraph) {
  auto m = ParseModel(M(R"(g (bool cnd, float[2] x) => (float[2] y) {
    a = Relu(x)
    b = Neg(x)
    i = If(cnd) <then_branch = t () => (float[2] ty) { ty = Abs(a) },
                 else_branch = e () => (float[2] ey) { ey = Identity(a) }>
    y = Add(i, b)
  })"));
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  Node *b = N(g, "b"), *i = N(g, "i");
  Graph& then_branch = *i->subgraphs()[0];
  EXPECT_FALSE(Reaches(*b, *i));
  EXPECT_EQ(ImmediatePostDominator(*b), N(g, "y"));
  then_branch.AddNode("Neg", {b->output(0)}, 1);
  EXPECT_TRUE(Reaches(*b, *i));
  EXPECT_EQ(ImmediatePostDominator(*b), N(g, "y"));  // read by y, and by i which y reads
  EXPECT_EQ(AnalysisComputations(g, kTopo), 2u);
  EXPECT_EQ(AnalysisComputations(g, kPostDominators), 2u);
}

// CollectGarbage drops every graph's cache when it frees something (the caches may point at it) or when a pass
// kept an analysis current through a change by declaring it preserved (that is for the pass alone); otherwise the
// caches stay, still current, and nothing is recomputed.
TEST(AnalysisCache, CollectGarbageDropsEveryGraphsCacheWhenItFreesOrAPassKeptOne) {
  auto m = ParseModel(M(R"(g (float[2] x) => (float[2] y) {
    a = Relu(x)
    cnd = Cast <to = 9> (a)
    y = If(cnd) <then_branch = t () => (float[2] ty) { ty = Abs(a) },
                 else_branch = e () => (float[2] ey) { ey = Identity(a) }>
  })"));
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  Graph& then_branch = *N(g, "y")->subgraphs()[0];
  auto compute = [&] {
    EXPECT_EQ(ImmediateDominator(*N(g, "y")), N(g, "a"));
    EXPECT_EQ(ImmediateDominator(*N(then_branch, "ty")), nullptr);
  };
  compute();
  ASSERT_TRUE(g.analysis_data());
  ASSERT_TRUE(then_branch.analysis_data());

  m->CollectGarbage();  // nothing to free
  ASSERT_TRUE(g.analysis_data());
  ASSERT_TRUE(then_branch.analysis_data());
  compute();
  EXPECT_EQ(AnalysisComputations(g, kDominators), 1u);

  g.RemoveNode(g.AddNode("Neg", {N(g, "a")->output(0)}, 1));
  m->CollectGarbage();  // frees the Neg
  EXPECT_FALSE(g.analysis_data());
  EXPECT_FALSE(then_branch.analysis_data());
  EXPECT_EQ(AnalysisComputations(g, kDominators), 0u);
  compute();
  EXPECT_EQ(AnalysisComputations(g, kDominators), 1u);

  m->preserved_analyses = KILN_ANALYSIS_DOMINATORS;
  N(g, "cnd")->SetInput(0, N(g, "a")->input(0));  // cnd reads x now; the tree is kept: the pass says so
  m->preserved_analyses = 0;
  EXPECT_EQ(ImmediateDominator(*N(g, "y")), N(g, "a"));  // stale, as declared
  EXPECT_EQ(AnalysisComputations(g, kDominators), 1u);
  m->CollectGarbage();
  EXPECT_FALSE(g.analysis_data());
  EXPECT_FALSE(then_branch.analysis_data());
  EXPECT_EQ(ImmediateDominator(*N(g, "y")), nullptr);  // recomputed: y's inputs no longer all pass through a
  EXPECT_EQ(AnalysisComputations(g, kDominators), 1u);
}

// ListedTopoOrder (what graph_nodes lists) is a fresh sort's list, the same object until the structure changes or a
// journal rolls back.
TEST(AnalysisCache, ListedOrderIsAFreshSortsRememberedUntilAChange) {
  auto m = ParseModel(M(kDiamond));
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  Node *b = N(g, "b"), *c = N(g, "c"), *y = N(g, "y");
  auto fresh = [&] {
    TopoResult r = TopologicalOrder(g);
    r.order.insert(r.order.end(), r.cycle_nodes.begin(), r.cycle_nodes.end());
    return r.order;
  };
  const std::vector<Node*>* first = &ListedTopoOrder(g);
  EXPECT_EQ(*first, fresh());
  const std::vector<Node*> before = *first;
  EXPECT_EQ(&ListedTopoOrder(g), first);
  EXPECT_EQ(ListedTopoOrder(g), before);  // not recomputed: the same contents

  m->journal().Begin();
  y->SetInput(1, b->output(0));
  g.RemoveNode(c);
  EXPECT_EQ(ListedTopoOrder(g).size(), 3u);
  EXPECT_EQ(ListedTopoOrder(g), fresh());
  m->journal().Rollback();
  EXPECT_EQ(ListedTopoOrder(g), before);

  Node* extra = g.AddNode("Neg", {b->output(0)}, 1);
  EXPECT_EQ(ListedTopoOrder(g).size(), 5u);
  EXPECT_EQ(ListedTopoOrder(g), fresh());
  EXPECT_NE(std::find(ListedTopoOrder(g).begin(), ListedTopoOrder(g).end(), extra), ListedTopoOrder(g).end());
}

}  // namespace
}  // namespace kiln
