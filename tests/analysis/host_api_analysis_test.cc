// The ABI 1.2 analysis slots of the host table, called the way a plugin calls them: graph_topo_order lists what
// graph_nodes lists; NULL and deleted handles and nodes of different graphs read as nothing; nodes_are_convex
// gives its witness, and refuses sets it cannot judge with none.
#include <gtest/gtest.h>

#include <vector>

#include "analysis_test_util.h"
#include "plugin/host_api.h"

namespace kiln {
namespace {

using plugin::FromKiln;
using plugin::ToKiln;
using testing::M;
using testing::N;
using testing::ParseModel;

const char* kGraph = R"(g (bool cnd, float[2] x) => (float[2] y) {
    a = Relu(x)
    b = Neg(a)
    c = Exp(a)
    d = Add(b, c)
    y = If(cnd) <then_branch = t () => (float[2] ty) { ty = Sigmoid(d) },
                 else_branch = e () => (float[2] ey) { ey = Identity(a) }>
  })";

class AnalysisSlots : public ::testing::Test {
 protected:
  KilnNode* K(const Graph& g, const char* name) { return ToKiln(N(g, name)); }
  const KilnHostApi& api = plugin::HostApi();
};

TEST_F(AnalysisSlots, TheTableHasThemAll) {
  EXPECT_TRUE(KILN_HOST_HAS(&api, nodes_are_convex));
  EXPECT_NE(api.graph_topo_order, nullptr);
  EXPECT_NE(api.node_topo_index, nullptr);
  EXPECT_NE(api.node_idom, nullptr);
  EXPECT_NE(api.node_ipostdom, nullptr);
  EXPECT_NE(api.node_dominates, nullptr);
  EXPECT_NE(api.node_postdominates, nullptr);
  EXPECT_NE(api.node_reaches, nullptr);
  EXPECT_NE(api.nodes_are_convex, nullptr);
}

TEST_F(AnalysisSlots, TopoOrderListsWhatGraphNodesLists) {
  auto m = ParseModel(M(kGraph));
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  // A node created last but read early, so storage order is not topological.
  Node* early = g.AddNode("Abs", {g.FindValue("x")}, 1);
  N(g, "b")->SetInput(1, early->output(0));
  KilnGraph* kg = ToKiln(&g);
  const size_t count = api.graph_nodes(kg, nullptr, 0);
  ASSERT_EQ(api.graph_topo_order(kg, nullptr, 0), count);
  std::vector<KilnNode*> nodes(count), topo(count), two(2);
  api.graph_nodes(kg, nodes.data(), count);
  EXPECT_EQ(api.graph_topo_order(kg, topo.data(), count), count);
  EXPECT_EQ(topo, nodes);
  EXPECT_EQ(api.graph_topo_order(kg, two.data(), 2), count);  // a short array gets the first ones
  EXPECT_EQ(two[0], nodes[0]);
  EXPECT_EQ(two[1], nodes[1]);
  EXPECT_LT(api.node_topo_index(ToKiln(early)), api.node_topo_index(K(g, "b")));
  for (size_t i = 0; i < count; ++i) EXPECT_EQ(api.node_topo_index(topo[i]), static_cast<int64_t>(i));
  // A subgraph's own order.
  KilnGraph* then_branch = ToKiln(N(g, "y")->subgraphs()[0]);
  ASSERT_EQ(api.graph_topo_order(then_branch, topo.data(), count), 1u);
  EXPECT_EQ(api.node_topo_index(topo[0]), 0);
  EXPECT_EQ(api.graph_topo_order(nullptr, topo.data(), count), 0u);
}

TEST_F(AnalysisSlots, AnswerAsTheAnalysesDo) {
  auto m = ParseModel(M(kGraph));
  ASSERT_TRUE(m);
  const Graph& g = m->graph();
  EXPECT_EQ(api.node_idom(K(g, "d")), K(g, "a"));
  EXPECT_EQ(api.node_idom(K(g, "a")), nullptr);
  EXPECT_EQ(api.node_ipostdom(K(g, "b")), K(g, "d"));
  EXPECT_EQ(api.node_ipostdom(K(g, "a")), K(g, "y"));  // y reads a in its else-branch, and d in its then-branch
  EXPECT_EQ(api.node_ipostdom(K(g, "y")), nullptr);
  EXPECT_EQ(api.node_dominates(K(g, "a"), K(g, "d")), 1);
  EXPECT_EQ(api.node_dominates(K(g, "a"), K(g, "y")), 0);  // y reads the graph input cnd
  EXPECT_EQ(api.node_idom(K(g, "y")), nullptr);
  EXPECT_EQ(api.node_dominates(K(g, "b"), K(g, "d")), 0);
  EXPECT_EQ(api.node_dominates(K(g, "b"), K(g, "b")), 1);
  EXPECT_EQ(api.node_postdominates(K(g, "d"), K(g, "c")), 1);
  EXPECT_EQ(api.node_postdominates(K(g, "d"), K(g, "a")), 0);
  EXPECT_EQ(api.node_reaches(K(g, "b"), K(g, "y")), 1);
  EXPECT_EQ(api.node_reaches(K(g, "b"), K(g, "c")), 0);
  EXPECT_EQ(api.node_reaches(K(g, "c"), K(g, "c")), 1);
}

TEST_F(AnalysisSlots, NullDeletedAndForeignNodesReadAsNothing) {
  auto m = ParseModel(M(kGraph));
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  KilnNode* a = K(g, "a");
  KilnNode* inner = ToKiln(N(*N(g, "y")->subgraphs()[0], "ty"));
  Node* dead_node = g.AddNode("Neg", {g.FindValue("x")}, 1);
  KilnNode* dead = ToKiln(dead_node);
  g.RemoveNode(dead_node);
  for (KilnNode* n : {static_cast<KilnNode*>(nullptr), dead}) {
    EXPECT_EQ(api.node_topo_index(n), -1);
    EXPECT_EQ(api.node_idom(n), nullptr);
    EXPECT_EQ(api.node_ipostdom(n), nullptr);
    EXPECT_EQ(api.node_dominates(n, n), 0);
    EXPECT_EQ(api.node_postdominates(n, n), 0);
    EXPECT_EQ(api.node_reaches(n, n), 0);
    EXPECT_EQ(api.node_dominates(a, n), 0);
    EXPECT_EQ(api.node_postdominates(n, a), 0);
    EXPECT_EQ(api.node_reaches(a, n), 0);
    EXPECT_EQ(api.node_reaches(n, a), 0);
  }
  // Nodes of different graphs (a reads into y, whose branch holds `inner`): no relation.
  EXPECT_EQ(api.node_dominates(a, inner), 0);
  EXPECT_EQ(api.node_postdominates(inner, a), 0);
  EXPECT_EQ(api.node_reaches(a, inner), 0);
  EXPECT_EQ(api.node_topo_index(inner), 0);
}

TEST_F(AnalysisSlots, ConvexityGivesAWitnessOrRefuses) {
  auto m = ParseModel(M(kGraph));
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  KilnNode *outside = ToKiln(g.nodes().front().get()), *inside = outside;  // not null, to see them cleared
  std::vector<KilnNode*> set = {K(g, "b"), K(g, "c")};
  EXPECT_EQ(api.nodes_are_convex(set.data(), set.size(), &outside, &inside), 1);
  EXPECT_EQ(outside, nullptr);
  EXPECT_EQ(inside, nullptr);

  set = {K(g, "a"), K(g, "b"), K(g, "y")};  // a -> c -> d -> y
  EXPECT_EQ(api.nodes_are_convex(set.data(), set.size(), &outside, &inside), 0);
  EXPECT_EQ(inside, K(g, "y"));
  EXPECT_EQ(outside, K(g, "d"));
  EXPECT_EQ(api.nodes_are_convex(set.data(), set.size(), nullptr, nullptr), 0);

  EXPECT_EQ(api.nodes_are_convex(nullptr, 0, &outside, &inside), 1);  // the empty set
  EXPECT_EQ(api.nodes_are_convex(nullptr, 2, &outside, &inside), 0);

  // Refused, with no witness: a NULL or deleted node, nodes of different graphs.
  Node* dead_node = g.AddNode("Neg", {g.FindValue("x")}, 1);
  g.RemoveNode(dead_node);
  KilnNode* inner = ToKiln(N(*N(g, "y")->subgraphs()[0], "ty"));
  for (KilnNode* odd : {static_cast<KilnNode*>(nullptr), ToKiln(dead_node), inner}) {
    set = {K(g, "a"), odd, K(g, "y")};
    outside = inside = K(g, "a");
    EXPECT_EQ(api.nodes_are_convex(set.data(), set.size(), &outside, &inside), 0);
    EXPECT_EQ(outside, nullptr);
    EXPECT_EQ(inside, nullptr);
  }
  set = {K(g, "a")};
  EXPECT_EQ(api.nodes_are_convex(set.data(), set.size(), nullptr, nullptr), 1);
  EXPECT_EQ(FromKiln(set[0])->op_type(), "Relu");
}

}  // namespace
}  // namespace kiln
