// MemoryPlanningPass: plans where every intermediate of the final schedule lives in one arena.
//
// What it does. On the main graph (the driver's runs on subgraphs and function bodies do nothing: the main graph's
// run covers its subgraphs), over the nodes in the order export writes them:
//   1. liveness and in-place reuse (liveness.h): each intermediate's live range in steps, views and in-place
//      writes sharing their input's buffer; values without a static inferred shape are listed as unplanned;
//   2. with memory.reorder (on at O3), a memory-aware topological order (memory_order.h), kept only when it lowers
//      the peak of live bytes (the lower bound below); then the pass REORDERS THE NODES of the written model
//      (graph_set_node_order, ABI 1.5) so the plan and the model agree on the schedule;
//   3. offsets in one arena, 64-byte aligned, by greedy-by-size, greedy-by-breadth and best-fit, keeping the
//      smallest arena (arena_planner.h);
//   4. the lower bound (the largest sum of aligned bytes live at one step) beside the arena, and the bytes the
//      intermediates would take each in memory of its own.
// The compile report gets the summary (reports.memory_plan: arena, lower bound, intermediate bytes, planners,
// views, in-place writes), and with memory.plan set (`kiln compile --memory-plan FILE.json`) the whole plan is
// written there (memory_plan_json.h).
//
// When. A graph pass in the Build stage (O2 and O3), switch oo.memoryPlanning. Nothing in the model changes but
// the order of the main graph's nodes, and that only with memory.reorder.
//
// Why correct. The order is topological (a node after the producers of everything it reads, inside its subgraphs
// too; the host checks it again before applying it), and ONNX nodes have no side effects, so the model computes
// the same outputs. The plan's soundness (no two values live at one step share a byte unless one is a view of, or
// was written in place over, the other) follows from liveness.h's rules and the planners' placement, and
// tests/memory checks it on every plan it makes.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <string_view>

namespace kiln::memory {

class MemoryPlanningPass final : public sdk::GraphPass {
 public:
  static constexpr std::string_view kName = "MemoryPlanningPass";
  static constexpr std::string_view kDescription =
      "liveness, in-place reuse and offsets in one arena for the final schedule; a memory-aware order at O3";
  static constexpr std::string_view kSwitchOption = "oo.memoryPlanning";

  void Run(sdk::PassContext& ctx, sdk::Graph graph) override;
};

}  // namespace kiln::memory
