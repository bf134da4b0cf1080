// Whether a set of nodes may become one fused call (seed 001's "candidate legality"; fusion-facts §6):
//   - every node is in the graph being fused (subgraph boundaries: a group never spans a graph and its subgraph);
//   - no node is non-deterministic, side-effecting, control flow, a sequence op, or already a fused call;
//   - no value the group computes is read outside it or is a graph output, except the group's outputs;
//   - the group is convex: no path leaves it and comes back (a group read from outside at one node only, the one
//     node nothing in the group reads, is convex by its own edges, as a pattern match whose only exit is its root
//     is; the host's analysis decides for the others).
// And, for several groups at once, that fusing them all creates no cycle between the calls.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <string>
#include <vector>

namespace kiln::fusion {

// "" when `node` may be part of a fused group; else why not.
std::string OpLegality(const sdk::Node& node);

// "" when `nodes` may become one call whose outputs are `outputs` (values the nodes compute); else the reason.
std::string GroupLegality(const sdk::Graph& graph, const std::vector<sdk::Node>& nodes,
                          const std::vector<sdk::Value>& outputs);

// Among groups (disjoint node sets of one graph), the indexes of those to drop so that fusing the rest creates no
// cycle between the calls: for each cycle found, the group with the lowest priority on it.
std::vector<size_t> GroupsMakingCycles(const sdk::Graph& graph, const std::vector<std::vector<sdk::Node>>& groups,
                                       const std::vector<double>& priority);

}  // namespace kiln::fusion
