#include "analysis/topo_cache.h"

#include "analysis/graph_analyses.h"
#include "ir/topo_order.h"

namespace kiln {

using namespace analysis_detail;

namespace {

void Reindex(GraphAnalyses& a) {
  a.index.clear();
  a.index.reserve(a.topo.size());
  for (size_t i = 0; i < a.topo.size(); ++i) a.index.emplace(a.topo[i], static_cast<int64_t>(i));
}

}  // namespace

const std::vector<Node*>& CachedTopoOrder(const Graph& g) {
  GraphAnalyses& a = AnalysesOf(g);
  if (!IsCurrent(g, kTopo) || !KnowsEveryNode(g, a.index)) {
    TopoResult r = TopologicalOrder(g);
    a.acyclic = r.cycle_nodes.empty();
    a.topo = std::move(r.order);
    a.topo.insert(a.topo.end(), r.cycle_nodes.begin(), r.cycle_nodes.end());
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

int64_t CachedTopoIndex(const Node& n) {
  if (n.is_deleted()) return -1;
  CachedTopoOrder(*n.graph());
  const GraphAnalyses& a = AnalysesOf(*n.graph());
  auto it = a.index.find(&n);
  return it == a.index.end() ? -1 : it->second;
}

}  // namespace kiln
