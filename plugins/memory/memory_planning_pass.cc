// MemoryPlanningPass: see memory_planning_pass.h.
#include "memory_planning_pass.h"

#include <kiln/kiln_plugin_parts.hpp>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "arena_planner.h"
#include "liveness.h"
#include "memory_order.h"
#include "memory_plan_json.h"

namespace kiln::memory {
namespace {

bool SameOrder(const std::vector<sdk::Node>& a, const std::vector<sdk::Node>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].raw() != b[i].raw()) return false;
  return true;
}

// Written next to the target and renamed, so a failed write leaves no partial plan.
void WriteFile(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out || !(out << text) || !(out.flush()))
      throw sdk::Error("memory.plan: cannot write '" + path + "'", KILN_STATUS_CONFIG_ERROR);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw sdk::Error("memory.plan: cannot write '" + path + "'", KILN_STATUS_CONFIG_ERROR);
  }
}

}  // namespace

void MemoryPlanningPass::Run(sdk::PassContext& ctx, sdk::Graph graph) {
  if (graph.ParentNode() || graph.AsFunctionBody()) return;
  MemoryPlan plan;
  plan.model = std::string(graph.Name());
  std::vector<sdk::Node> order = graph.TopoOrder();
  plan.live = ComputeLiveness(graph, order, /*in_place=*/true);
  plan.lower_bound = plan.original_lower_bound = LowerBound(plan.live.buffers);
  std::vector<sdk::Node> reordered;

  if (ctx.OptionBool("memory.reorder")) {
    // Both list schedules (memory_order.h); the one with the lower peak, kept only when it beats the given order.
    auto bytes = [](const sdk::Value& v) { return v.IsConstant() ? 0 : PlannedBytes(v); };
    for (bool depth_first : {false, true}) {
      std::vector<sdk::Node> aware = MemoryAwareOrder(order, bytes, depth_first);
      if (SameOrder(aware, order)) continue;
      Liveness live = ComputeLiveness(graph, aware, /*in_place=*/true);
      const uint64_t bound = LowerBound(live.buffers);
      ctx.Log(KILN_LOG_DEBUG, std::string("memory-aware order") + (depth_first ? " (depth first)" : "") +
                                  ": lower bound " + std::to_string(bound) + " bytes, given order " +
                                  std::to_string(plan.original_lower_bound));
      if (bound >= plan.lower_bound) continue;
      plan.live = std::move(live);
      plan.lower_bound = bound;
      plan.order = "memory_aware";
      reordered = std::move(aware);
    }
  }
  const std::string path = ctx.OptionString("memory.plan");
  if (path.empty()) plan.live.ReleaseValues();  // only the plan file lists them
  std::vector<sdk::Node>().swap(order);
  plan.peak_live_bytes = PeakLiveBytes(plan.live.buffers);
  plan.arena = PlanArena(plan.live.buffers, &plan.tried);

  ctx.AddCounter("arena_bytes", static_cast<int64_t>(plan.arena.arena));
  ctx.AddCounter("lower_bound_bytes", static_cast<int64_t>(plan.lower_bound));
  ctx.AddCounter("intermediate_bytes", static_cast<int64_t>(plan.live.intermediate_bytes));
  ctx.AddReport("memory_plan", SummaryJson(plan));
  if (!path.empty()) WriteFile(path, PlanJson(plan));
  // Last: the plan reads the graph's values and names, which the ABI keeps valid only while the graph is unchanged.
  if (!reordered.empty()) {
    graph.SetNodeOrder(reordered);
    ctx.AddCounter("nodes_reordered", static_cast<int64_t>(reordered.size()));
  }
}

}  // namespace kiln::memory

KILN_PLUGIN_PART(MemoryPlanningPass) { reg.AddGraphPass<kiln::memory::MemoryPlanningPass>(); }
