// Reachability between nodes of one graph over its data edges (ForEachDependent: a node depends on every producer
// whose value it reads, also from inside its subgraphs). No table is kept: each query is a forward search from
// `from` that never goes past `to` in the cached topological order (topo_cache.h), since a node placed after
// `to` cannot lead back to it. Queries are therefore always answered on the graph as it is; the analysis's
// preserved bit (KILN_ANALYSIS_REACHABILITY) changes nothing. Convexity (convexity.h) is the same search.
#pragma once

namespace kiln {

class Node;

// Whether a path of data edges leads from `from` to `to`. True when from == to; false for nodes of different
// graphs and for deleted nodes.
bool Reaches(const Node& from, const Node& to);

}  // namespace kiln
