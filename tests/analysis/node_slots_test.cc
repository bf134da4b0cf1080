// NodeSlots: the analyses' table of each node's slot (host/analysis/node_slots.h).
#include "analysis/node_slots.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/model.h"
#include "support/error.h"

namespace kiln {
namespace {

// n Relus in a row, their nodes in graph order.
std::vector<Node*> Relus(Model& m, size_t n) {
  Graph& g = m.graph();
  Value* prev = g.AddInput("x", Type());
  std::vector<Node*> out;
  for (size_t i = 0; i < n; ++i) {
    Node* r = g.AddNode("Relu", {prev}, 1);
    out.push_back(r);
    prev = r->output(0);
  }
  return out;
}

TEST(NodeSlots, EveryListedNodeFindsItsPlaceAndOthersNone) {
  Model m;
  std::vector<Node*> nodes = Relus(m, 5000);  // past several growths of the table
  std::vector<Node*> listed(nodes.begin(), nodes.begin() + 3000);
  std::reverse(listed.begin(), listed.end());
  NodeSlots slots;
  EXPECT_EQ(slots.Find(nodes[0]), -1);  // empty
  slots.Assign(listed);
  EXPECT_EQ(slots.size(), 3000u);
  for (size_t i = 0; i < listed.size(); ++i) ASSERT_EQ(slots.Find(listed[i]), static_cast<int32_t>(i));
  for (size_t i = 3000; i < nodes.size(); ++i) ASSERT_FALSE(slots.Contains(nodes[i]));
  EXPECT_EQ(slots.Find(nullptr), -1);
  try {
    slots.At(nodes[4000], "Probe");
    ADD_FAILURE() << "no error for a node without a slot";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kInternal);
    EXPECT_NE(std::string(e.what()).find("Probe"), std::string::npos) << e.what();
  }
  EXPECT_EQ(slots.At(listed[7], "Probe"), 7);
}

TEST(NodeSlots, AssignReplacesWhatWasHeldAndAListedTwiceNodeKeepsItsFirstSlot) {
  Model m;
  std::vector<Node*> nodes = Relus(m, 40);
  NodeSlots slots;
  slots.Assign(nodes);
  slots.Assign({nodes[3], nodes[9], nodes[3]});
  EXPECT_EQ(slots.Find(nodes[3]), 0);
  EXPECT_EQ(slots.Find(nodes[9]), 1);
  EXPECT_EQ(slots.Find(nodes[0]), -1);
  slots.Assign({});
  EXPECT_EQ(slots.Find(nodes[3]), -1);
}

// Ids spread over far more numbers than there are nodes (a few early nodes and a late one) take the table by
// address; both ways give the same slots.
TEST(NodeSlots, NodesWhoseIdsSpreadFindTheirSlotsToo) {
  Model m;
  std::vector<Node*> nodes = Relus(m, 3000);
  const std::vector<Node*> sparse = {nodes[2999], nodes[5], nodes[0], nodes[1500]};
  NodeSlots slots;
  slots.Assign(sparse);
  for (size_t i = 0; i < sparse.size(); ++i) EXPECT_EQ(slots.Find(sparse[i]), static_cast<int32_t>(i));
  EXPECT_EQ(slots.Find(nodes[6]), -1);
  EXPECT_EQ(slots.Find(nodes[2998]), -1);
}

// A node of another model can hold the same id as a listed one, and one of another graph of the same model an id
// within the listed ones' span: neither has a slot.
TEST(NodeSlots, NodesOfAnotherGraphFindNoSlot) {
  Model m, other;
  std::vector<Node*> nodes = Relus(m, 10);
  std::vector<Node*> twins = Relus(other, 10);
  ASSERT_EQ(twins[3]->id(), nodes[3]->id());
  NodeSlots slots;
  slots.Assign(nodes);
  EXPECT_EQ(slots.Find(nodes[3]), 3);
  EXPECT_EQ(slots.Find(twins[3]), -1);
  std::vector<Node*> first_half(nodes.begin(), nodes.begin() + 5);
  slots.Assign(first_half);
  EXPECT_EQ(slots.Find(nodes[7]), -1);  // within the span the array may cover, but not listed
}

}  // namespace
}  // namespace kiln
