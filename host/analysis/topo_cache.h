// The cached topological order of a graph (Graph::analysis_data), recomputed when the graph's structure changed
// since it was computed. When the running pass declared it preserved (KILN_ANALYSIS_TOPO_ORDER) it is kept:
// deleted nodes are dropped from it, and a node added since makes it recompute (see graph_analyses.h).
#pragma once

#include <cstdint>
#include <vector>

namespace kiln {

class Graph;
class Node;

// The nodes in topological order (TopologicalOrder's, cycle nodes last; graph_nodes lists the same), deleted ones
// left out.
const std::vector<Node*>& CachedTopoOrder(const Graph& g);
// The node's index in CachedTopoOrder(its graph); -1 for a deleted node.
int64_t CachedTopoIndex(const Node& n);
// TopologicalOrder's list (cycle nodes last) exactly as a fresh sort gives it, remembered until the graph's
// structure changes (or a journal rolls back): graph_nodes serves every plugin pass's Graph::Nodes() from it, which
// asks twice (count, then fill) and often of a graph the previous pass left as it was. No index: cheaper than
// CachedTopoOrder when nothing else needs one. CachedTopoOrder starts from it.
const std::vector<Node*>& ListedTopoOrder(const Graph& g);

}  // namespace kiln
