// Graph::holds_subgraphs: the count of a graph's nodes that hold subgraphs, which walks of the graph tree (the pass
// driver, ForEachGraphIn, CountNodes) read to skip a graph's nodes when none does. It must follow every way a node
// gains or loses a subgraph: an attribute set, replaced or removed, the node removed, and each of those rolled back.
#include <gtest/gtest.h>

#include <memory>

#include "ir/graph_copy.h"
#include "ir/model.h"
#include "support/golden.h"
#include "verify/verifier.h"

namespace kiln {
namespace {

using testing::ParseModel;

constexpr const char* kModel = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[2] x) => (float[2] y) {
  a = Relu(x)
  y = If(c) <then_branch = t () => (float[2] r) { r = Neg(a) }, else_branch = e () => (float[2] s) { s = Abs(a) }>
}
)";

Node* Find(Graph& g, const std::string& op) {
  for (const auto& n : g.nodes())
    if (n->op_type() == op) return n.get();
  return nullptr;
}

size_t Actual(const Graph& g) {
  size_t n = 0;
  for (const auto& node : g.nodes()) n += node->has_subgraphs();
  return n;
}

// A graph attribute holding a copy of `from`, for node `owner`.
Attribute GraphAttribute(const std::string& name, const Graph& from, Node* owner) {
  Attribute a;
  a.name = name;
  a.kind = AttrKind::kGraph;
  a.has_g = true;
  a.graphs.push_back(CopyGraph(from, owner->graph(), owner, {}));
  return a;
}

TEST(SubgraphHolders, ImportCountsTheIf) {
  auto m = ParseModel(kModel);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->graph().subgraph_holders(), 1u);
  EXPECT_TRUE(m->graph().holds_subgraphs());
  const Graph* then_branch = Find(m->graph(), "If")->subgraphs()[0];
  EXPECT_FALSE(then_branch->holds_subgraphs());
  EXPECT_EQ(m->graph().CountNodes(true), 4u);
}

TEST(SubgraphHolders, FollowsAttributesAndRemovalAndTheirRollback) {
  auto m = ParseModel(kModel);
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  Node* relu = Find(g, "Relu");
  Node* cond = Find(g, "If");
  const Graph& branch = *cond->subgraphs()[0];

  m->journal().Begin();
  relu->SetAttribute(GraphAttribute("body", branch, relu));  // a second holder
  EXPECT_EQ(g.subgraph_holders(), 2u);
  relu->SetAttribute(GraphAttribute("body", branch, relu));  // replaced: still one holder
  EXPECT_EQ(g.subgraph_holders(), 2u);
  relu->SetAttribute(Attribute::Int("body", 1));  // replaced by a plain attribute
  EXPECT_EQ(g.subgraph_holders(), 1u);
  relu->SetAttribute(GraphAttribute("other", branch, relu));
  EXPECT_EQ(g.subgraph_holders(), 2u);
  EXPECT_TRUE(relu->RemoveAttribute("other"));
  EXPECT_EQ(g.subgraph_holders(), 1u);
  cond->RemoveAttribute("else_branch");  // still holds then_branch
  EXPECT_EQ(g.subgraph_holders(), 1u);
  g.SetOutput(0, g.FindValue("a"));
  g.RemoveNode(cond);
  EXPECT_EQ(g.subgraph_holders(), 0u);
  EXPECT_FALSE(g.holds_subgraphs());
  EXPECT_EQ(g.CountNodes(true), 1u);
  m->journal().Rollback();

  EXPECT_EQ(g.subgraph_holders(), 1u);
  EXPECT_EQ(Actual(g), 1u);
  EXPECT_EQ(g.CountNodes(true), 4u);
  EXPECT_TRUE(VerifyModel(*m).empty());
}

// A graph attribute made in a transaction (a copy reading an outer value) and rolled back: the undo of the
// attribute ran first and freed the copy, and then the copy's own undo steps ran on it (a crash). The outer value
// keeps exactly its own readers, and the model verifies.
TEST(SubgraphHolders, AGraphAttributeMadeInATransactionRollsBack) {
  for (bool replace : {false, true}) {
    auto m = ParseModel(kModel);
    ASSERT_TRUE(m);
    Graph& g = m->graph();
    Node* relu = Find(g, "Relu");
    Node* cond = Find(g, "If");
    if (replace) relu->SetAttribute(Attribute::Int("body", 1));
    const size_t readers = g.FindValue("a")->uses().size();
    m->journal().Begin();
    relu->SetAttribute(GraphAttribute("body", *cond->subgraphs()[0], relu));
    EXPECT_EQ(g.FindValue("a")->uses().size(), readers + 1);
    EXPECT_EQ(g.subgraph_holders(), 2u);
    m->journal().Rollback();
    m->CollectGarbage();
    EXPECT_EQ(g.FindValue("a")->uses().size(), readers) << replace;
    EXPECT_EQ(g.subgraph_holders(), 1u);
    EXPECT_EQ(relu->FindAttribute("body") != nullptr, replace);
    EXPECT_TRUE(VerifyModel(*m).empty());
  }
}

TEST(SubgraphHolders, CopiedNodesAreCounted) {
  auto m = ParseModel(kModel);
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  Node* cond = Find(g, "If");
  ValueMap map;
  for (Value* in : cond->inputs()) map[in] = in;
  for (Value* v : {g.FindValue("a")}) map[v] = v;
  CopyNodes({cond}, g, map);
  EXPECT_EQ(g.subgraph_holders(), 2u);
  EXPECT_EQ(Actual(g), 2u);
}

}  // namespace
}  // namespace kiln
