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

}  // namespace
}  // namespace kiln
