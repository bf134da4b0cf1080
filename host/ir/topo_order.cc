#include "ir/topo_order.h"

#include <queue>
#include <unordered_map>

#include "ir/graph.h"
#include "support/error.h"

namespace kiln {

void ForEachDependent(const Graph& g, Node* n, const std::function<void(Node*)>& fn) {
  for (Value* out : n->outputs()) {
    if (out == nullptr) continue;
    for (const Use& u : out->uses()) {
      Node* consumer = g.AncestorIn(u.node);
      if (consumer != nullptr && consumer != n) fn(consumer);
    }
  }
}

TopoResult TopologicalOrder(const Graph& g) {
  std::unordered_map<const Node*, uint32_t> pending;
  pending.reserve(g.num_nodes());
  for (const auto& n : g.nodes()) pending[n.get()] = 0;
  for (const auto& n : g.nodes()) ForEachDependent(g, n.get(), [&](Node* c) { ++pending[c]; });

  auto later = [](const Node* a, const Node* b) {
    return a->order() != b->order() ? a->order() > b->order() : a->id() > b->id();
  };
  std::priority_queue<Node*, std::vector<Node*>, decltype(later)> ready(later);
  for (const auto& n : g.nodes())
    if (pending[n.get()] == 0) ready.push(n.get());

  TopoResult r;
  r.order.reserve(g.num_nodes());
  while (!ready.empty()) {
    Node* n = ready.top();
    ready.pop();
    r.order.push_back(n);
    ForEachDependent(g, n, [&](Node* c) {
      if (--pending[c] == 0) ready.push(c);
    });
  }
  if (r.order.size() != g.num_nodes())
    for (const auto& n : g.nodes())
      if (pending[n.get()] != 0) r.cycle_nodes.push_back(n.get());
  return r;
}

std::vector<Node*> TopologicalOrderOrThrow(const Graph& g, const std::string& where) {
  TopoResult r = TopologicalOrder(g);
  if (r.cycle_nodes.empty()) return std::move(r.order);
  std::string names;
  for (size_t i = 0; i < r.cycle_nodes.size() && i < 5; ++i) {
    const Node* n = r.cycle_nodes[i];
    names += (i ? ", '" : "'") + (n->name().empty() ? n->op_type() : n->name()) + "'";
  }
  if (r.cycle_nodes.size() > 5) names += ", ...";
  throw ModelError(where + ": the graph has a cycle through nodes " + names);
}

}  // namespace kiln
