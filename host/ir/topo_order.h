// Topological order of a graph's nodes. A node that holds subgraphs depends on every producer whose value its
// subgraphs read from this graph. Among the nodes that are ready, the one with the smallest (order, id) goes
// first, so a graph that was already sorted keeps its order and new nodes sit where the pass put them.
#pragma once

#include <functional>
#include <optional>
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

// Throws kiln::Error (invalid model) naming a few nodes on the cycle when `g` is cyclic.
std::vector<Node*> TopologicalOrderOrThrow(const Graph& g, const std::string& where);

// The nodes of `g` that `n` must wait for: producers of its inputs and of the outer values its subgraphs read.
void ForEachDependent(const Graph& g, Node* n, const std::function<void(Node*)>& fn);

}  // namespace kiln
