// The readable text form of a resolved pipeline, printed by `kiln compile --print-pipeline`: the level and files,
// the plugins, every option in effect with its source, then each stage in run order (pipeline_plan.h's steps):
// each graph pass on its own line, each node walk as a group of its node passes (and, for the last walk, the
// after-walk passes). Numbers are positions in the stage's `passes:` (and `after_walk:`) list; a skipped pass is
// marked with the reason where it is listed, and cuts no walk.
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
//   stage OptimizeStage1
//     1. InferShapePass                            [graph pass]
//     walk 1:
//       2. ReplaceWithEmptyConstPass
//       3. ConstantFoldingPass                     [skipped: oo.constantFolding=false (session)]
//       4. IdentityEliminationPass
//     5. DeadCodeEliminationPass                   [graph pass]
//     walk 2 (after-walk passes only):
//       after walk:
//       1. PotentialConstTakenEffectPass
// A walk none of whose passes runs is no walk: its (skipped) passes are printed without a group around them.
std::string PrintPipeline(const Pipeline& pipeline, const PipelinePlan& plan, const ResolvedOptions& options,
                          const PipelinePrintOptions& print = {});

}  // namespace kiln
