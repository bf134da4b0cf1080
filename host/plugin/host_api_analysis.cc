// ABI 1.2 slots: the host analyses (host/analysis) over one graph's data edges: the cached topological order,
// dominators and post-dominators, reachability and convexity. None changes the graph. A NULL or deleted node reads
// as nothing (-1, NULL, 0), and so do two nodes of different graphs: no analysis relates nodes across graphs.
#include <vector>

#include "analysis/convexity.h"
#include "analysis/dominators.h"
#include "analysis/reachability.h"
#include "analysis/topo_cache.h"
#include "ir/graph.h"
#include "plugin/host_api.h"

namespace kiln::plugin {
namespace {

bool Live(KilnNode* n) { return n != nullptr && !FromKiln(n)->is_deleted(); }
bool LivePair(KilnNode* a, KilnNode* b) { return Live(a) && Live(b) && FromKiln(a)->graph() == FromKiln(b)->graph(); }

// The same list as graph_nodes (TopologicalOrder, cycle nodes last), from the cache.
size_t GraphTopoOrder(KilnGraph* g, KilnNode** out, size_t capacity) {
  return GuardedValue<size_t>(0, [&]() -> size_t {
    if (!g) return 0;
    const std::vector<Node*>& order = CachedTopoOrder(*FromKiln(g));
    if (out != nullptr)
      for (size_t i = 0; i < order.size() && i < capacity; ++i) out[i] = ToKiln(order[i]);
    return order.size();
  });
}

int64_t NodeTopoIndex(KilnNode* n) {
  return GuardedValue<int64_t>(-1, [&] { return Live(n) ? CachedTopoIndex(*FromKiln(n)) : int64_t{-1}; });
}

KilnNode* NodeIdom(KilnNode* n) {
  return GuardedValue<KilnNode*>(nullptr, [&] { return Live(n) ? ToKiln(ImmediateDominator(*FromKiln(n))) : nullptr; });
}

KilnNode* NodeIpostdom(KilnNode* n) {
  return GuardedValue<KilnNode*>(nullptr,
                                 [&] { return Live(n) ? ToKiln(ImmediatePostDominator(*FromKiln(n))) : nullptr; });
}

int NodeDominates(KilnNode* a, KilnNode* b) {
  return GuardedValue<int>(0, [&] { return LivePair(a, b) && Dominates(*FromKiln(a), *FromKiln(b)) ? 1 : 0; });
}

int NodePostdominates(KilnNode* a, KilnNode* b) {
  return GuardedValue<int>(0, [&] { return LivePair(a, b) && PostDominates(*FromKiln(a), *FromKiln(b)) ? 1 : 0; });
}

int NodeReaches(KilnNode* from, KilnNode* to) {
  return GuardedValue<int>(0, [&] { return LivePair(from, to) && Reaches(*FromKiln(from), *FromKiln(to)) ? 1 : 0; });
}

// Convexity is a property of a set within one graph: a set with a NULL or deleted node, or with nodes of different
// graphs, is refused (0, and no witness: both outputs NULL). The empty set is convex.
int NodesAreConvex(KilnNode* const* nodes, size_t count, KilnNode** out_outside, KilnNode** out_inside) {
  if (out_outside) *out_outside = nullptr;
  if (out_inside) *out_inside = nullptr;
  return GuardedValue<int>(0, [&]() -> int {
    if (count == 0) return 1;
    if (nodes == nullptr) return 0;
    std::vector<Node*> set;
    set.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      if (!Live(nodes[i])) return 0;
      set.push_back(FromKiln(nodes[i]));
      if (set.back()->graph() != set.front()->graph()) return 0;
    }
    Node *outside = nullptr, *inside = nullptr;
    if (IsConvex(*set.front()->graph(), set, &outside, &inside)) return 1;
    if (out_outside) *out_outside = ToKiln(outside);
    if (out_inside) *out_inside = ToKiln(inside);
    return 0;
  });
}

}  // namespace

void FillAnalysisSlots(KilnHostApi& api) {
  api.graph_topo_order = GraphTopoOrder;
  api.node_topo_index = NodeTopoIndex;
  api.node_idom = NodeIdom;
  api.node_ipostdom = NodeIpostdom;
  api.node_dominates = NodeDominates;
  api.node_postdominates = NodePostdominates;
  api.node_reaches = NodeReaches;
  api.nodes_are_convex = NodesAreConvex;
}

}  // namespace kiln::plugin
