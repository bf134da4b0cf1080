#include "analysis/topo_cache.h"

#include "analysis/graph_analyses.h"
#include "ir/journal.h"
#include "ir/topo_order.h"

namespace kiln {

using namespace analysis_detail;

namespace {

void Reindex(GraphAnalyses& a) { a.index.Assign(a.Topo()); }

}  // namespace

const std::vector<Node*>& CachedTopoOrder(const Graph& g) {
  GraphAnalyses& a = AnalysesOf(g);
  if (!IsCurrent(g, kTopo) || !KnowsEveryNode(g, a.index)) {
    ListedTopoOrder(g);
    std::vector<Node*>().swap(a.topo);
    a.topo_own = false;
    a.acyclic = a.listed_acyclic;
    Reindex(a);
    MarkCurrent(g, kTopo);
    ++a.computations[kTopo];
  } else if (a.Topo().size() != g.num_nodes()) {
    // Kept by a pass that preserves it, and every live node is known: the difference is what it deleted.
    if (!a.topo_own) {
      a.topo = a.listed;
      a.topo_own = true;
    }
    std::erase_if(a.topo, [](const Node* n) { return n->is_deleted(); });
    Reindex(a);
  }
  return a.Topo();
}

const std::vector<Node*>& ListedTopoOrder(const Graph& g) {
  GraphAnalyses& a = AnalysesOf(g);
  const uint64_t rollbacks = Journal::RollbackCount();
  if (a.listed_valid && a.listed_version == g.structure_version() && a.listed_rollbacks == rollbacks)
    return a.listed;
  // The cached order is this list while topo_own is unset: one kept by a pass that preserves it (still current)
  // takes the list over; a stale one is made again from the new list when next asked for.
  if (!a.topo_own && IsCurrent(g, kTopo)) {
    a.topo = std::move(a.listed);
    a.topo_own = true;
  }
  TopoResult r = TopologicalOrder(g);
  a.listed_acyclic = r.cycle_nodes.empty();
  a.listed = std::move(r.order);
  a.listed.insert(a.listed.end(), r.cycle_nodes.begin(), r.cycle_nodes.end());
  a.listed_version = g.structure_version();
  a.listed_rollbacks = rollbacks;
  a.listed_valid = true;
  return a.listed;
}

int64_t CachedTopoIndex(const Node& n) {
  if (n.is_deleted()) return -1;
  CachedTopoOrder(*n.graph());
  const GraphAnalyses& a = AnalysesOf(*n.graph());
  return a.index.Find(&n);
}

}  // namespace kiln
