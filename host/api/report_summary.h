// The short text form of a compile report: the level, nodes before and after, the time, and per stage the passes
// that changed something. `kiln compile` prints it on stderr; the embedding API returns it in BuildResult::summary.
//
//   kiln: O1: 15 -> 9 nodes in 0.004 s
//     Prepare: ConstantFoldingPass 3 changes
//     OptimizeStage1: DeadCodeEliminationPass 2 changes
//     OptimizeStage2: no changes
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace kiln {

// Needs the report's "level", "nodes_before", "nodes_after", "seconds"."total" and "stages".
std::string ReportSummaryText(const nlohmann::json& report);

}  // namespace kiln
