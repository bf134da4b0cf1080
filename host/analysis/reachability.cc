#include "analysis/reachability.h"

#include <cstdint>
#include <limits>
#include <vector>

#include "analysis/graph_analyses.h"
#include "analysis/topo_cache.h"
#include "ir/topo_order.h"

namespace kiln {

using namespace analysis_detail;

bool Reaches(const Node& from, const Node& to) {
  if (from.is_deleted() || to.is_deleted() || from.graph() != to.graph()) return false;
  if (&from == &to) return true;
  const Graph& g = *from.graph();
  CachedTopoOrder(g);
  GraphAnalyses& a = AnalysesOf(g);
  const int64_t i_from = a.index.At(&from, "Reaches"), i_to = a.index.At(&to, "Reaches");
  // In a cyclic graph (never produced by the host) positions prove nothing: search everything.
  const int64_t bound = a.acyclic ? i_to : std::numeric_limits<int64_t>::max();
  if (i_from > bound) return false;
  VisitMarks seen(a);
  seen.Insert(i_from);
  std::vector<Node*> stack{const_cast<Node*>(&from)};
  bool found = false;
  while (!stack.empty() && !found) {
    Node* u = stack.back();
    stack.pop_back();
    ForEachDependent(g, u, [&](Node* c) {
      if (found) return;
      if (c == &to) {
        found = true;
        return;
      }
      int64_t j = a.index.At(c, "Reaches");
      if (j <= bound && seen.Insert(j)) stack.push_back(c);
    });
  }
  return found;
}

}  // namespace kiln
