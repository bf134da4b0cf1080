// Internal to kiln_pipeline: reading a file's `stages:` list into the stages inherited from its parent. A stage the
// parent lacks is defined with `passes` / `after_walk`; a stage it has is edited with `replace`, `remove`,
// `insert_before`, `insert_after`, `prepend`, `append` and `after_walk`, applied in that order.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "pipeline/yaml_reading.h"

namespace kiln {

// Applies the `stages:` node of one file to `stages` (the parent's, or empty). `parent_file` is "" when the file
// extends nothing; it names the parent in messages otherwise.
void ReadStages(const YamlFileContext& ctx, const YAML::Node& node, const SourcePos& key_pos,
                const std::string& parent_file, std::vector<PipelineStage>& stages);

}  // namespace kiln
