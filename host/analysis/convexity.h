// Convexity of a node set: no path of data edges leaves the set and comes back into it (fusing such a set into one
// node would make the node its own ancestor). The same search as reachability.h: IsConvex(S) is false exactly
// when some node u outside S has Reaches(s, u) and Reaches(u, t) for nodes s, t of S.
#pragma once

#include <vector>

namespace kiln {

class Graph;
class Node;

// Whether `nodes` (live nodes of graph g; duplicates are allowed, the empty set is convex) are convex. When they are
// not, *outside (if not null) gets a node outside the set on a path from the set back into it, and *inside (if
// not null) the node of the set that the path reaches next; an edge leads from *outside to *inside. The search
// starts at the set's readers outside it and stops past the set's last node in g's cached topological order
// (analysis/topo_cache.h). Throws InternalError when a node is deleted or not of g.
bool IsConvex(const Graph& g, const std::vector<Node*>& nodes, Node** outside = nullptr, Node** inside = nullptr);

}  // namespace kiln
