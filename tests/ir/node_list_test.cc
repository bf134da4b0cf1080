// NodeList (host/ir/owner_list.h): a graph's nodes in a vector with holes, read as the std::list it replaced was.
// A loop over a graph's nodes meets the nodes added while it runs and not those removed meanwhile (the current one
// included); the holes close up in the garbage collection between passes, order kept; a rollback puts removed
// nodes back last.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/model.h"
#include "ir_test_models.h"

namespace kiln::testing {
namespace {

// The names of the graph's Relu nodes, in the graph's order.
std::vector<std::string> Names(const Graph& g) {
  std::vector<std::string> out;
  for (const auto& n : g.nodes())
    if (n->op_type() == "Relu") out.push_back(n->name());
  return out;
}

// A graph whose one output is Identity(x), and `count` unread Relu nodes of x named r0, r1, ...
std::unique_ptr<Model> Relus(int count) {
  auto m = ParseModelWithFunctions(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y) {
  y = Identity (x)
})", {});
  Graph& g = m->graph();
  for (int i = 0; i < count; ++i) g.AddNode("Relu", {g.inputs()[0]}, 1, "r" + std::to_string(i));
  return m;
}

Node* NodeNamed(const Graph& g, const std::string& name) {
  for (const auto& n : g.nodes())
    if (n->name() == name) return n.get();
  return nullptr;
}

TEST(NodeList, ALoopMeetsNodesAddedWhileItRunsAndNotNodesRemoved) {
  auto m = Relus(4);
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  Node* r2 = NodeNamed(g, "r2");
  std::vector<std::string> met;
  for (const auto& n : g.nodes()) {
    if (n->op_type() != "Relu") continue;
    met.push_back(n->name());
    if (n->name() == "r0") {
      for (int i = 0; i < 100; ++i) g.AddNode("Relu", {g.inputs()[0]}, 1, "late" + std::to_string(i));  // grows the vector
      g.RemoveNode(r2);
    }
    if (n->name() == "r1") g.RemoveNode(n.get());  // the current node
    if (met.size() > 200) break;
  }
  ASSERT_EQ(met.size(), 103u);
  EXPECT_EQ(met[0], "r0");
  EXPECT_EQ(met[1], "r1");
  EXPECT_EQ(met[2], "r3");
  EXPECT_EQ(met[3], "late0");
  EXPECT_EQ(met.back(), "late99");
  EXPECT_EQ(g.num_nodes(), 1u + 102u);
  EXPECT_EQ(g.nodes().front()->op_type(), "Identity");
  EXPECT_EQ(g.nodes().back()->name(), "late99");
}

TEST(NodeList, HolesCloseUpBetweenPassesAndARollbackPutsNodesBackLast) {
  auto m = Relus(3000);
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  std::vector<Node*> relus;
  for (int i = 0; i < 3000; ++i) relus.push_back(NodeNamed(g, "r" + std::to_string(i)));

  m->journal().Begin();
  for (size_t i = 0; i < 3000; i += 2) g.RemoveNode(relus[i]);
  std::vector<std::string> odd;
  for (int i = 1; i < 3000; i += 2) odd.push_back("r" + std::to_string(i));
  EXPECT_EQ(Names(g), odd);
  m->journal().Rollback();
  std::vector<std::string> restored = odd;  // the last removed comes back first
  for (int i = 2998; i >= 0; i -= 2) restored.push_back("r" + std::to_string(i));
  EXPECT_EQ(Names(g), restored);
  EXPECT_EQ(g.num_nodes(), 3001u);
  EXPECT_TRUE(m->dead_nodes().empty());

  m->journal().Begin();
  for (size_t i = 1; i < 3000; i += 2) g.RemoveNode(relus[i]);
  m->journal().Commit();
  m->CollectGarbage();
  std::vector<std::string> even;
  for (int i = 2998; i >= 0; i -= 2) even.push_back("r" + std::to_string(i));
  EXPECT_EQ(Names(g), even);
  EXPECT_EQ(g.num_nodes(), 1501u);
  // After the collection closed the holes up, a node still comes off and goes on where it should.
  g.RemoveNode(relus[1000]);
  Node* again = g.AddNode("Relu", {g.inputs()[0]}, 1, "again");
  EXPECT_EQ(g.nodes().back().get(), again);
  EXPECT_EQ(g.num_nodes(), 1501u);
  for (const auto& n : g.nodes()) EXPECT_NE(n->name(), "r1000");
}

}  // namespace
}  // namespace kiln::testing
