// What tests ask of the analysis cache: how many times an analysis was computed for a graph since its cache was
// last cleared (Model::CollectGarbage clears every graph's), which tells a kept result from a recomputed one.
#pragma once

#include <cstdint>

#include "analysis/graph_analyses.h"

namespace kiln {

// kind: Graph::analysis_stamp's index (0 topological order, 1 dominators, 2 post-dominators, 3 reachability).
inline uint64_t AnalysisComputations(const Graph& g, int kind) {
  if (!g.analysis_data() || kind < 0 || kind >= Graph::kAnalysisKinds) return 0;
  return static_cast<const analysis_detail::GraphAnalyses*>(g.analysis_data().get())->computations[kind];
}

}  // namespace kiln
