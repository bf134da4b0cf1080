// Reachability (host/analysis/reachability.h) and convexity (convexity.h): paths through subgraph reads, nodes of
// different graphs, witnesses; and every subset of a small graph against the definition (a set is convex when no
// node outside it is reached from it and reaches back into it), witnesses checked against Reaches.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "analysis/convexity.h"
#include "analysis/reachability.h"
#include "analysis_test_util.h"
#include "support/error.h"

namespace kiln {
namespace {

using testing::M;
using testing::N;
using testing::NameOf;
using testing::ParseModel;

const char* kGraph = R"(g (bool cnd, float[2] x) => (float[2] y, float[2] z) {
    a = Relu(x)
    b = Neg(a)
    c = Exp(a)
    d = Add(b, c)
    e = Abs(x)
    i = If(cnd) <then_branch = t () => (float[2] ty) { ty = Sigmoid(d) },
                 else_branch = f () => (float[2] fy) { fy = Identity(e) }>
    y = Mul(i, b)
    z = Tanh(e)
  })";

TEST(Reachability, FollowsDataEdgesAndSubgraphReads) {
  auto m = ParseModel(M(kGraph));
  ASSERT_TRUE(m);
  const Graph& g = m->graph();
  auto R = [&](const char* from, const char* to) { return Reaches(*N(g, from), *N(g, to)); };
  EXPECT_TRUE(R("a", "d"));
  EXPECT_TRUE(R("a", "y"));
  EXPECT_TRUE(R("d", "i"));  // read inside the then-branch
  EXPECT_TRUE(R("e", "i"));  // read inside the else-branch
  EXPECT_TRUE(R("e", "y"));
  EXPECT_TRUE(R("a", "a"));  // a node reaches itself
  EXPECT_FALSE(R("b", "c"));
  EXPECT_FALSE(R("d", "a"));
  EXPECT_FALSE(R("a", "e"));
  EXPECT_FALSE(R("e", "d"));
  EXPECT_FALSE(R("a", "z"));
  EXPECT_FALSE(R("y", "i"));

  // Nodes of different graphs are never related.
  Node* ty = N(*N(g, "i")->subgraphs()[0], "ty");
  EXPECT_FALSE(Reaches(*N(g, "d"), *ty));
  EXPECT_FALSE(Reaches(*ty, *N(g, "i")));
}

TEST(Reachability, DeletedNodesReachNothing) {
  auto m = ParseModel(M(kGraph));
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  Node* z = N(g, "z");
  g.RemoveOutput(1);
  g.RemoveNode(z);
  EXPECT_FALSE(Reaches(*N(g, "e"), *z));
  EXPECT_FALSE(Reaches(*z, *z));
  EXPECT_TRUE(Reaches(*N(g, "e"), *N(g, "y")));
}

TEST(Reachability, ACyclicGraphIsSearchedWhole) {
  // The host never builds a cycle, but the IR can hold one: positions then bound nothing, and answers stay right.
  auto m = ParseModel(M(R"(g (float[2] x) => (float[2] y) {
    a = Relu(x)
    b = Neg(a)
    y = Abs(b)
  })"));
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  Node *a = N(g, "a"), *b = N(g, "b"), *y = N(g, "y");
  a->SetInput(1, b->output(0));
  EXPECT_TRUE(Reaches(*a, *b));
  EXPECT_TRUE(Reaches(*b, *a));
  EXPECT_TRUE(Reaches(*b, *y));
  EXPECT_FALSE(Reaches(*y, *a));
  Node *outside = nullptr, *inside = nullptr;
  EXPECT_FALSE(IsConvex(g, {a}, &outside, &inside));  // a -> b -> a
  EXPECT_EQ(outside, b);
  EXPECT_EQ(inside, a);
  EXPECT_TRUE(IsConvex(g, {a, b}));
}

TEST(Convexity, WitnessesAPathThatComesBack) {
  auto m = ParseModel(M(kGraph));
  ASSERT_TRUE(m);
  const Graph& g = m->graph();
  Node *outside = nullptr, *inside = nullptr;
  EXPECT_TRUE(IsConvex(g, {N(g, "b"), N(g, "c")}, &outside, &inside));
  EXPECT_EQ(outside, nullptr);
  EXPECT_EQ(inside, nullptr);
  EXPECT_TRUE(IsConvex(g, {N(g, "a"), N(g, "b"), N(g, "c"), N(g, "d")}));
  EXPECT_TRUE(IsConvex(g, {}));
  EXPECT_TRUE(IsConvex(g, {N(g, "a"), N(g, "a")}));

  // a -> c -> d leaves {a, b, d} and comes back.
  EXPECT_FALSE(IsConvex(g, {N(g, "a"), N(g, "b"), N(g, "d")}, &outside, &inside));
  EXPECT_EQ(NameOf(outside), "c");
  EXPECT_EQ(NameOf(inside), "d");

  // d -> i (its then-branch reads d) -> y, which also reads b: {b, d, y} is not convex through i.
  EXPECT_FALSE(IsConvex(g, {N(g, "y"), N(g, "d"), N(g, "b")}, &outside, &inside));
  EXPECT_EQ(NameOf(outside), "i");
  EXPECT_EQ(NameOf(inside), "y");
}

TEST(Convexity, RefusesNodesOfAnotherGraph) {
  auto m = ParseModel(M(kGraph));
  ASSERT_TRUE(m);
  const Graph& g = m->graph();
  Node* ty = N(*N(g, "i")->subgraphs()[0], "ty");
  EXPECT_THROW(IsConvex(g, {N(g, "a"), ty}), Error);
}

TEST(Convexity, EverySubsetAgreesWithReaches) {
  auto m = ParseModel(M(kGraph));
  ASSERT_TRUE(m);
  const Graph& g = m->graph();
  std::vector<Node*> nodes;
  for (const auto& n : g.nodes()) nodes.push_back(n.get());
  const size_t n = nodes.size();
  ASSERT_EQ(n, 8u);
  for (uint32_t mask = 1; mask < (1u << n); ++mask) {
    std::vector<Node*> set;
    for (size_t i = 0; i < n; ++i)
      if (mask & (1u << i)) set.push_back(nodes[i]);
    auto in = [&](const Node* x) { return std::find(set.begin(), set.end(), x) != set.end(); };
    bool expected = true;
    for (Node* u : nodes) {
      if (in(u)) continue;
      bool from = std::any_of(set.begin(), set.end(), [&](Node* s) { return Reaches(*s, *u); });
      bool back = std::any_of(set.begin(), set.end(), [&](Node* s) { return Reaches(*u, *s); });
      if (from && back) expected = false;
    }
    Node *outside = nullptr, *inside = nullptr;
    ASSERT_EQ(IsConvex(g, set, &outside, &inside), expected) << "mask " << mask;
    if (expected) continue;
    // The witness: outside the set, reached from it, and read by `inside` of the set directly.
    ASSERT_NE(outside, nullptr);
    ASSERT_NE(inside, nullptr);
    EXPECT_FALSE(in(outside));
    EXPECT_TRUE(in(inside));
    EXPECT_TRUE(std::any_of(set.begin(), set.end(), [&](Node* s) { return Reaches(*s, *outside); }));
    bool edge = false;
    ForEachRead(*inside, [&](Node*, size_t, Value* v) { edge = edge || v->producer() == outside; });
    EXPECT_TRUE(edge) << NameOf(outside) << " -> " << NameOf(inside);
  }
}

}  // namespace
}  // namespace kiln
