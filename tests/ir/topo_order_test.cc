// IsAcyclic: one pass over the reads when they all go forward in the nodes' positions, TopologicalOrder when one
// goes back (acyclic all the same, or a cycle). TopologicalOrder: the nodes sorted by position when every read goes
// forward, which must be exactly what its search by position gives (checked against that search written out here).
#include "ir/topo_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "ir/model.h"
#include "support/golden.h"

namespace kiln {
namespace {

using testing::ParseModel;

constexpr const char* kHeader = R"(<ir_version: 8, opset_import: ["" : 17]>)";

TEST(IsAcyclic, ReadsGoingForwardInPosition) {
  auto m = ParseModel(std::string(kHeader) + R"(g (float[2] x) => (float[2] y) { a = Relu(x)  b = Neg(a)  y = Abs(b) })");
  ASSERT_TRUE(m);
  EXPECT_TRUE(IsAcyclic(m->graph()));
}

TEST(IsAcyclic, ReadsGoingBackInPositionButNoCycle) {
  auto m = ParseModel(std::string(kHeader) + R"(g (float[2] x) => (float[2] y) { y = Abs(b)  b = Neg(a)  a = Relu(x) })");
  ASSERT_TRUE(m);
  EXPECT_TRUE(IsAcyclic(m->graph()));
  EXPECT_TRUE(TopologicalOrder(m->graph()).cycle_nodes.empty());
}

TEST(IsAcyclic, ACycleIsFoundWhicheverWayItsReadsGo) {
  for (const char* body : {"a = Relu(x)  b = Neg(a)  y = Abs(b)", "y = Abs(b)  b = Neg(a)  a = Relu(x)"}) {
    auto m = ParseModel(std::string(kHeader) + "g (float[2] x) => (float[2] y) { " + body + " }");
    ASSERT_TRUE(m);
    Graph& g = m->graph();
    Node* relu = g.FindValue("a")->producer();
    relu->SetInput(0, g.FindValue("b"));  // Relu reads Neg, which reads Relu
    EXPECT_FALSE(IsAcyclic(g)) << body;
  }
}

// Kahn's algorithm with the ready node of the smallest position first: TopologicalOrder's definition.
std::vector<Node*> ReferenceOrder(const Graph& g) {
  std::vector<Node*> nodes, ready, out;
  for (const auto& n : g.nodes()) nodes.push_back(n.get());
  std::map<Node*, int> pending;
  for (Node* n : nodes) ForEachDependent(g, n, [&](Node* c) { ++pending[c]; });
  for (Node* n : nodes)
    if (pending[n] == 0) ready.push_back(n);
  while (!ready.empty()) {
    auto first = std::min_element(ready.begin(), ready.end(), PositionBefore);
    Node* n = *first;
    ready.erase(first);
    out.push_back(n);
    ForEachDependent(g, n, [&](Node* c) {
      if (--pending[c] == 0) ready.push_back(c);
    });
  }
  return out;
}

// Random graphs, each node reading one or two earlier values, with positions set three ways: creation order (the
// storage order), another topological order (reads forward, storage order unsorted: the sort), and a random
// permutation (reads going back: the search).
TEST(TopologicalOrder, IsTheSearchByPositionWhicheverWayThePositionsGo) {
  std::mt19937 rng(12345);
  int forward_unsorted = 0, backward = 0;
  for (int round = 0; round < 300; ++round) {
    auto m = ParseModel(std::string(kHeader) + "g (float[2] x) => (float[2] y) { y = Relu(x) }");
    ASSERT_TRUE(m);
    Graph& g = m->graph();
    std::vector<Value*> values = {g.FindValue("x"), g.FindValue("y")};
    const int n = 2 + static_cast<int>(rng() % 30);
    for (int i = 0; i < n; ++i) {
      std::vector<Value*> in = {values[rng() % values.size()]};
      if (rng() % 2) in.push_back(values[rng() % values.size()]);
      values.push_back(g.AddNode(in.size() == 1 ? "Relu" : "Add", in, 1)->output(0));
    }
    std::vector<Node*> nodes;
    for (const auto& node : g.nodes()) nodes.push_back(node.get());
    const int mode = round % 3;
    if (mode == 1) {  // a random topological order: any ready node next
      std::vector<Node*> order, ready;
      std::map<Node*, int> pending;
      for (Node* x : nodes) ForEachDependent(g, x, [&](Node* c) { ++pending[c]; });
      for (Node* x : nodes)
        if (pending[x] == 0) ready.push_back(x);
      while (!ready.empty()) {
        size_t k = rng() % ready.size();
        Node* x = ready[k];
        ready.erase(ready.begin() + static_cast<long>(k));
        order.push_back(x);
        ForEachDependent(g, x, [&](Node* c) {
          if (--pending[c] == 0) ready.push_back(c);
        });
      }
      g.SetNodeOrder(order);
      forward_unsorted += order != nodes;
    } else if (mode == 2) {
      std::vector<Node*> order = nodes;
      std::shuffle(order.begin(), order.end(), rng);
      g.SetNodeOrder(order);
      bool goes_back = false;
      for (Node* x : nodes) ForEachDependent(g, x, [&](Node* c) { goes_back = goes_back || !PositionBefore(x, c); });
      backward += goes_back;
    }
    TopoResult r = TopologicalOrder(g);
    EXPECT_TRUE(r.cycle_nodes.empty());
    EXPECT_EQ(r.order, ReferenceOrder(g)) << "round " << round;
  }
  EXPECT_GT(forward_unsorted, 50);  // the rounds exercised both paths
  EXPECT_GT(backward, 50);
}

}  // namespace
}  // namespace kiln
