// Planning a pipeline under resolved options, and cutting a stage into steps; see pipeline_plan.h.
#include "pipeline/pipeline_plan.h"

namespace kiln {

PipelinePlan PlanPipeline(const Pipeline& pipeline, const ResolvedOptions& options, const PassCatalog& catalog) {
  PassGate gate(options, catalog);
  PipelinePlan plan;
  plan.level = options.level();
  auto planned = [&](const PassRef& pass) {
    return PlannedPass{pass, gate.Decide(pass.name), catalog.IsGraphPass(pass.name)};
  };
  for (const PipelineStage& stage : pipeline.stages) {
    PlannedStage out{stage.name, {}, {}};
    for (const PassRef& pass : stage.passes) out.passes.push_back(planned(pass));
    for (const PassRef& pass : stage.after_walk) out.after_walk.push_back(planned(pass));
    plan.stages.push_back(std::move(out));
  }
  return plan;
}

bool PlannedStep::Runs() const {
  if (kind == Kind::kGraphPass) return true;
  for (const PlannedPass* p : passes)
    if (p->decision.run && !p->graph_pass) return true;
  for (const PlannedPass* p : after_walk)
    if (p->decision.run) return true;
  return false;
}

std::vector<PlannedStep> StageSteps(const PlannedStage& stage) {
  std::vector<PlannedStep> steps;
  PlannedStep walk;
  for (const PlannedPass& pass : stage.passes) {
    if (!pass.graph_pass || !pass.decision.run) {
      walk.passes.push_back(&pass);
      continue;
    }
    if (!walk.passes.empty()) steps.push_back(std::move(walk));
    walk = PlannedStep{};
    steps.push_back(PlannedStep{PlannedStep::Kind::kGraphPass, {&pass}, {}});
  }
  for (const PlannedPass& pass : stage.after_walk) walk.after_walk.push_back(&pass);
  if (!walk.passes.empty() || !walk.after_walk.empty()) steps.push_back(std::move(walk));
  return steps;
}

}  // namespace kiln
