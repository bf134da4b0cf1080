// The readable text form of a resolved pipeline, printed by `kiln compile --print-pipeline`: the level and files,
// the plugins, every option in effect with its source, then each stage's passes in order with their arguments,
// skipped passes marked with the reason.
#pragma once

#include <string>

#include "options/option_resolver.h"
#include "pipeline/pipeline.h"
#include "pipeline/pipeline_plan.h"

namespace kiln {

struct PipelinePrintOptions {
  bool positions = false;  // append "# file:line:column" to each pass
};

// Example:
//   pipeline O1 (configs/pipelines/O1.yaml)
//   plugins: folding
//   options:
//     oo.constantFolding = false   (session --oo.constantFolding)
//   stage Prepare
//     1. ReplaceWithEmptyConstPass
//     2. DimensionComputePass need_fold=false
//     3. ConstantFoldingPass   [skipped: oo.constantFolding=false (session)]
//     after walk:
//     1. PotentialConstTakenEffectPass
std::string PrintPipeline(const Pipeline& pipeline, const PipelinePlan& plan, const ResolvedOptions& options,
                          const PipelinePrintOptions& print = {});

}  // namespace kiln
