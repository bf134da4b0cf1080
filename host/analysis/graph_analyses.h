// What the analyses keep per graph (in Graph::analysis_data), and the stamps that say which parts are current.
// Private to host/analysis (tests read the computation counts through analysis/analysis_stats.h).
//
// An analysis is current when its stamp equals the graph's structure version (Graph::BumpStructure keeps the
// stamps of the kinds the running pass declares preserved in step with the version). A kept (preserved) result
// may still name nodes deleted since it was computed: each analysis skips them. It cannot know nodes added since,
// so a kept result is recomputed as soon as the graph holds a node it does not know. That test is O(1): nodes are
// appended to a graph's list (Graph::AddNode, and a removal's undo), so any node added since the computation sits
// after every known one, and the last node of the list is unknown exactly when some node is.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "analysis/node_slots.h"
#include "ir/graph.h"

namespace kiln::analysis_detail {

// Graph::analysis_stamp indices, and the bit of each in Model::preserved_analyses (1 << kind, which are the ABI's
// KILN_ANALYSIS_* values).
enum Kind { kTopo = 0, kDominators = 1, kPostDominators = 2, kReachability = 3 };

// A (post-)dominator tree over a graph's nodes plus a virtual root (the entry, or the exit), which has slot
// `nodes.size()`. Slots are the nodes' topological positions when it was computed.
struct DomTree {
  std::vector<Node*> nodes;                      // by slot
  NodeSlots slot;
  std::vector<int32_t> parent;                   // immediate (post-)dominator's slot; the root's slot for none
  std::vector<int32_t> pre, size;                // preorder number and subtree size: a dominates b iff
                                                 // pre[a] <= pre[b] < pre[a] + size[a]
  int32_t SlotOf(const Node* n) const { return slot.Find(n); }
};

struct GraphAnalyses {
  // Topological order (TopologicalOrder's, cycle nodes last; Topo() reads it) and each node's index in it. It is
  // `listed` itself until the two differ (a kept order that dropped deleted nodes, or a listed one sorted anew while
  // the kept one stays): then `topo` holds its own copy and topo_own is set. One copy less of a large graph's order
  // (8 bytes a node).
  std::vector<Node*> topo;
  bool topo_own = false;
  NodeSlots index;
  bool acyclic = true;  // false when topo ends with cycle nodes (then positions bound no search)
  // ListedTopoOrder's memo: a fresh sort's list, and the structure version and rollback count it was made at.
  // CachedTopoOrder starts from it too, so one structure version is sorted once.
  std::vector<Node*> listed;
  uint64_t listed_version = 0, listed_rollbacks = 0;
  bool listed_valid = false, listed_acyclic = true;
  DomTree dom, postdom;
  // Per-search visit marks by topological index (reachability, convexity): a node is visited when its mark
  // equals `epoch`.
  std::vector<uint32_t> mark;
  uint32_t epoch = 0;
  // How many times each kind was computed for this graph (the test hook behind analysis_stats.h).
  uint64_t computations[Graph::kAnalysisKinds] = {};

  const std::vector<Node*>& Topo() const { return topo_own ? topo : listed; }
};

// The graph's analyses, created empty on first use.
inline GraphAnalyses& AnalysesOf(const Graph& g) {
  std::shared_ptr<void>& data = g.analysis_data();
  if (!data) data = std::make_shared<GraphAnalyses>();
  return *static_cast<GraphAnalyses*>(data.get());
}

inline bool IsCurrent(const Graph& g, Kind k) { return g.analysis_data() && g.analysis_stamp(k) == g.structure_version(); }
inline void MarkCurrent(const Graph& g, Kind k) { g.set_analysis_stamp(k, g.structure_version()); }

// The visited set of one search over a graph's nodes (reachability, convexity), by topological index: it starts
// empty in O(1) (a new epoch of GraphAnalyses::mark). One search at a time per graph.
class VisitMarks {
 public:
  explicit VisitMarks(GraphAnalyses& a) : a_(a) {
    if (a.mark.size() < a.Topo().size()) a.mark.resize(a.Topo().size(), 0);
    if (++a.epoch == 0) {
      std::fill(a.mark.begin(), a.mark.end(), 0);
      a.epoch = 1;
    }
  }
  // Marks index i; false when it was marked already.
  bool Insert(int64_t i) {
    if (a_.mark[i] == a_.epoch) return false;
    a_.mark[i] = a_.epoch;
    return true;
  }

 private:
  GraphAnalyses& a_;
};

// Whether every live node of g is known to a result holding `known` (see the banner).
inline bool KnowsEveryNode(const Graph& g, const NodeSlots& known) {
  return g.nodes().empty() || known.Contains(g.nodes().back().get());
}

}  // namespace kiln::analysis_detail
