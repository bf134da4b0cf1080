// Planning a pipeline under resolved options; see pipeline_plan.h.
#include "pipeline/pipeline_plan.h"

namespace kiln {

PipelinePlan PlanPipeline(const Pipeline& pipeline, const ResolvedOptions& options, const PassCatalog& catalog) {
  PassGate gate(options, catalog);
  PipelinePlan plan;
  plan.level = options.level();
  for (const PipelineStage& stage : pipeline.stages) {
    PlannedStage planned{stage.name, {}, {}};
    for (const PassRef& pass : stage.passes) planned.passes.push_back({pass, gate.Decide(pass.name)});
    for (const PassRef& pass : stage.after_walk) planned.after_walk.push_back({pass, gate.Decide(pass.name)});
    plan.stages.push_back(std::move(planned));
  }
  return plan;
}

}  // namespace kiln
