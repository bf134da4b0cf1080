// The resolved pipeline for one compile: the loaded Pipeline's stages with every pass's run-or-skip decision
// (pass_gate.h) under the resolved options, and each stage cut into the steps the pass driver takes. The
// Compiler runs the steps; --print-pipeline prints them.
#pragma once

#include <string>
#include <vector>

#include "options/option_resolver.h"
#include "pipeline/pass_gate.h"
#include "pipeline/pipeline.h"

namespace kiln {

struct PlannedPass {
  PassRef pass;
  PassDecision decision;
  bool graph_pass = false;  // PassCatalog::IsGraphPass; otherwise a node pass
};

struct PlannedStage {
  std::string name;
  std::vector<PlannedPass> passes;      // the stage's `passes:`, skipped ones included (decision.run == false)
  std::vector<PlannedPass> after_walk;  // the stage's `after_walk:`
};

struct PipelinePlan {
  OptLevel level = OptLevel::kO0;
  std::vector<PlannedStage> stages;
};

// Throws ConfigError when the switch or disable list names an unknown pass.
PipelinePlan PlanPipeline(const Pipeline& pipeline, const ResolvedOptions& options, const PassCatalog& catalog);

// One step of a stage. A stage's `passes:` list is cut at every graph pass that runs: the node passes before it
// form one walk (every node pass on each node, in one traversal), the graph pass runs on its own, and the node
// passes after it form the next walk. The `after_walk:` passes join the last walk, the one after the last graph
// pass that runs; when no node pass follows that graph pass, they make a walk of their own. A pass that does not
// run cuts nothing: it stays in the step where it is listed.
struct PlannedStep {
  enum class Kind { kWalk, kGraphPass };
  Kind kind = Kind::kWalk;
  std::vector<const PlannedPass*> passes;      // in listed order; kGraphPass: the one graph pass, which runs
  std::vector<const PlannedPass*> after_walk;  // the stage's after_walk list, on its last walk; else empty
  // A graph-pass step always runs; a walk runs when one of its node passes or after-walk passes runs.
  bool Runs() const;
};

// The steps of `stage` in run order (pointers into `stage`). A stage without passes has none.
std::vector<PlannedStep> StageSteps(const PlannedStage& stage);

}  // namespace kiln
