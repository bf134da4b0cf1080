#include "ir/topo_order.h"

#include <algorithm>

#include "ir/graph.h"
#include "support/error.h"

namespace kiln {

bool PositionBefore(const Node* a, const Node* b) {
  return a->order() != b->order() ? a->order() < b->order() : a->id() < b->id();
}

namespace {

// Whether every node reading an output of `n` sits after it in position.
bool ReadsGoForward(const Graph& g, Node* n) {
  bool forward = true;
  ForEachDependent(g, n, [&](Node* c) { forward = forward && PositionBefore(n, c); });
  return forward;
}

// The order when every read goes forward in position: the nodes sorted by position, which is what SearchOrder
// gives then (each node's producers all sit before it, so when every node before it is out it is ready, and no
// ready node sits before it). One pass over the reads and, where nodes were added out of storage order, a sort;
// the search walks the reads twice more and keeps a heap. False, with `order` unspecified, at a backward read.
bool OrderByPosition(const Graph& g, std::vector<Node*>& order) {
  order.reserve(g.num_nodes());
  bool sorted = true;
  for (const auto& n : g.nodes()) {
    if (!ReadsGoForward(g, n.get())) return false;
    if (!order.empty() && !PositionBefore(order.back(), n.get())) sorted = false;
    order.push_back(n.get());
  }
  if (!sorted) std::sort(order.begin(), order.end(), PositionBefore);
  return true;
}

// Kahn's search with the ready node of the smallest position first (the order TopologicalOrder defines).
TopoResult SearchOrder(const Graph& g) {
  TopoResult r;
  r.order.reserve(g.num_nodes());
  // Node::scratch holds each node's count of unfinished producers.
  for (const auto& n : g.nodes()) n->scratch = 0;
  for (const auto& n : g.nodes()) ForEachDependent(g, n.get(), [&](Node* c) { ++c->scratch; });

  auto later = [](const Node* a, const Node* b) { return PositionBefore(b, a); };  // a min-heap on position
  std::vector<Node*> heap;
  for (const auto& n : g.nodes())
    if (n->scratch == 0) heap.push_back(n.get());
  std::make_heap(heap.begin(), heap.end(), later);

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

}  // namespace

TopoResult TopologicalOrder(const Graph& g) {
  TopoResult r;
  if (OrderByPosition(g, r.order)) return r;
  return SearchOrder(g);
}

bool IsAcyclic(const Graph& g) {
  for (const auto& n : g.nodes())
    if (!ReadsGoForward(g, n.get())) return SearchOrder(g).cycle_nodes.empty();
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
