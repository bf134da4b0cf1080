// The memory plan as JSON: the file `kiln compile --memory-plan FILE.json` writes (option memory.plan), and the
// summary the compile report gets (reports.memory_plan of MemoryPlanningPass).
//
// The file: {"model", "alignment", "algorithm" (the planner kept), "order" ("memory_aware" or "original"),
// "arena_bytes", "lower_bound_bytes", "peak_live_bytes" (unaligned), "intermediate_bytes" (every planned value in
// memory of its own), "original_order_lower_bound_bytes", "planners": {name: arena bytes}, "steps",
// "schedule": [node of each step], "values": [{"name", "graph", "offset", "size", "first", "last", "buffer",
// "reuse" ("view" | "in-place", when it shares its buffer), "reuse_of"}], "unplanned": [{"name", "graph",
// "reason"}]}.
#pragma once

#include <string>
#include <vector>

#include "arena_planner.h"
#include "liveness.h"

namespace kiln::memory {

struct MemoryPlan {
  std::string model;
  std::string order = "original";
  Liveness live;
  ArenaPlan arena;                   // offsets per buffer of live.buffers
  std::vector<PlannerResult> tried;
  uint64_t lower_bound = 0;
  uint64_t peak_live_bytes = 0;
  uint64_t original_lower_bound = 0;  // with the order the pass was given
};

std::string PlanJson(const MemoryPlan& plan);
std::string SummaryJson(const MemoryPlan& plan);

}  // namespace kiln::memory
