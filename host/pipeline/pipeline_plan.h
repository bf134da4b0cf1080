// The resolved pipeline for one compile: the loaded Pipeline's stages with every pass's run-or-skip decision
// (pass_gate.h) under the resolved options. The pass driver walks it; --print-pipeline prints it.
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
};

struct PlannedStage {
  std::string name;
  std::vector<PlannedPass> passes;      // the walk's passes, skipped ones included (decision.run == false)
  std::vector<PlannedPass> after_walk;  // run once the walk ends
};

struct PipelinePlan {
  OptLevel level = OptLevel::kO0;
  std::vector<PlannedStage> stages;
};

// Throws ConfigError when the switch or disable list names an unknown pass.
PipelinePlan PlanPipeline(const Pipeline& pipeline, const ResolvedOptions& options, const PassCatalog& catalog);

}  // namespace kiln
