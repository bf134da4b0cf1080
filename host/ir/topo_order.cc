#include "ir/topo_order.h"

#include <algorithm>

#include "ir/graph.h"
#include "support/error.h"

namespace kiln {

bool PositionBefore(const Node* a, const Node* b) {
  return a->order() != b->order() ? a->order() < b->order() : a->id() < b->id();
}

TopoResult TopologicalOrder(const Graph& g) {
  // Node::scratch holds each node's count of unfinished producers.
  for (const auto& n : g.nodes()) n->scratch = 0;
  for (const auto& n : g.nodes()) ForEachDependent(g, n.get(), [&](Node* c) { ++c->scratch; });

  auto later = [](const Node* a, const Node* b) { return PositionBefore(b, a); };  // a min-heap on position
  std::vector<Node*> heap;
  for (const auto& n : g.nodes())
    if (n->scratch == 0) heap.push_back(n.get());
  std::make_heap(heap.begin(), heap.end(), later);

  TopoResult r;
  r.order.reserve(g.num_nodes());
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    Node* n = heap.back();
    heap.pop_back();
    r.order.push_back(n);
    ForEachDependent(g, n, [&](Node* c) {
      if (--c->scratch == 0) {
        heap.push_back(c);
        std::push_heap(heap.begin(), heap.end(), later);
      }
    });
  }
  if (r.order.size() != g.num_nodes())
    for (const auto& n : g.nodes())
      if (n->scratch != 0) r.cycle_nodes.push_back(n.get());
  return r;
}

bool IsAcyclic(const Graph& g) {
  bool forward = true;
  for (const auto& n : g.nodes()) {
    ForEachDependent(g, n.get(), [&](Node* c) { forward = forward && PositionBefore(n.get(), c); });
    if (!forward) return TopologicalOrder(g).cycle_nodes.empty();
  }
  return true;
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
