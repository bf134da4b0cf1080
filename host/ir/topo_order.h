// Topological order of a graph's nodes. A node that holds subgraphs depends on every producer whose value its
// subgraphs read from this graph. Among the nodes that are ready, the one with the smallest (order, id) goes
// first, so a graph that was already sorted keeps its order and new nodes sit where the pass put them.
#pragma once

#include <string>
#include <vector>

namespace kiln {

class Graph;
class Node;

struct TopoResult {
  std::vector<Node*> order;       // every node when the graph is acyclic
  std::vector<Node*> cycle_nodes;  // nodes left over when it is not (empty otherwise)
};

TopoResult TopologicalOrder(const Graph& g);

// Whether `g` has no cycle: every read goes forward in the (order, id) positions (one pass over the reads, as a
// graph that was sorted and then rewritten in place mostly is), else TopologicalOrder decides.
bool IsAcyclic(const Graph& g);

// The tie-break among ready nodes: position hint first, then creation order.
bool PositionBefore(const Node* a, const Node* b);

// Throws kiln::Error (invalid model) naming a few nodes on the cycle when `g` is cyclic.
std::vector<Node*> TopologicalOrderOrThrow(const Graph& g, const std::string& where);

// Calls fn(consumer) for each node of `g` that reads an output of `n`, directly or from inside its subgraphs (once
// per read).
template <typename Fn>
void ForEachDependent(const Graph& g, Node* n, Fn&& fn);

}  // namespace kiln

#include "ir/graph.h"

namespace kiln {

template <typename Fn>
void ForEachDependent(const Graph& g, Node* n, Fn&& fn) {
  for (Value* out : n->outputs()) {
    if (out == nullptr) continue;
    for (const Use& u : out->uses()) {
      Node* consumer = u.node->graph() == &g ? u.node : g.AncestorIn(u.node);
      if (consumer != nullptr && consumer != n) fn(consumer);
    }
  }
}

}  // namespace kiln
