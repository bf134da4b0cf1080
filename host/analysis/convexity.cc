#include "analysis/convexity.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <unordered_set>

#include "analysis/graph_analyses.h"
#include "analysis/topo_cache.h"
#include "ir/topo_order.h"
#include "support/error.h"

namespace kiln {

using namespace analysis_detail;

bool IsConvex(const Graph& g, const std::vector<Node*>& nodes, Node** outside, Node** inside) {
  if (outside) *outside = nullptr;
  if (inside) *inside = nullptr;
  CachedTopoOrder(g);
  GraphAnalyses& a = AnalysesOf(g);
  std::unordered_set<const Node*> in_set;
  in_set.reserve(nodes.size());
  int64_t bound = -1;
  for (const Node* n : nodes) {
    const int32_t at = n == nullptr || n->is_deleted() || n->graph() != &g ? -1 : a.index.Find(n);
    if (at < 0) throw InternalError("IsConvex: a node of the set is not a live node of the graph");
    in_set.insert(n);
    bound = std::max<int64_t>(bound, at);
  }
  // A node placed after every node of the set cannot lead back into it (unless the graph is cyclic).
  if (!a.acyclic) bound = std::numeric_limits<int64_t>::max();
  VisitMarks seen(a);
  std::vector<Node*> stack;
  // Pushes n's readers outside the set; returns a reader inside it when n is outside (the path came back).
  auto expand = [&](Node* n, bool n_outside) -> Node* {
    Node* back_in = nullptr;
    ForEachDependent(g, n, [&](Node* c) {
      if (back_in != nullptr) return;
      if (in_set.count(c)) {
        if (n_outside) back_in = c;
        return;
      }
      int64_t j = a.index.At(c, "IsConvex");
      if (j <= bound && seen.Insert(j)) stack.push_back(c);
    });
    return back_in;
  };
  for (Node* n : nodes) expand(n, false);
  while (!stack.empty()) {
    Node* u = stack.back();
    stack.pop_back();
    if (Node* back_in = expand(u, true)) {
      if (outside) *outside = u;
      if (inside) *inside = back_in;
      return false;
    }
  }
  return true;
}

}  // namespace kiln
