#include "analysis/topo_cache.h"

#include "analysis/graph_analyses.h"
#include "ir/journal.h"
#include "ir/topo_order.h"

namespace kiln {

using namespace analysis_detail;

namespace {

void Reindex(GraphAnalyses& a) { a.index.Assign(a.topo); }

}  // namespace

const std::vector<Node*>& CachedTopoOrder(const Graph& g) {
  GraphAnalyses& a = AnalysesOf(g);
  if (!IsCurrent(g, kTopo) || !KnowsEveryNode(g, a.index)) {
    a.topo = ListedTopoOrder(g);
    a.acyclic = a.listed_acyclic;
    Reindex(a);
    MarkCurrent(g, kTopo);
    ++a.computations[kTopo];
  } else if (a.topo.size() != g.num_nodes()) {
    // Kept by a pass that preserves it, and every live node is known: the difference is what it deleted.
    std::erase_if(a.topo, [](const Node* n) { return n->is_deleted(); });
    Reindex(a);
  }
  return a.topo;
}

const std::vector<Node*>& ListedTopoOrder(const Graph& g) {
  GraphAnalyses& a = AnalysesOf(g);
  const uint64_t rollbacks = Journal::RollbackCount();
  if (a.listed_valid && a.listed_version == g.structure_version() && a.listed_rollbacks == rollbacks)
    return a.listed;
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
