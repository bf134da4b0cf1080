// Where the shipped pipeline files (configs/pipelines/O0.yaml .. O3.yaml) live, and what `extends:` names: a
// level (`extends: O1`, the shipped file of that level, wherever it is installed) or a path relative to the file
// that extends.
#pragma once

#include <filesystem>
#include <string_view>

#include "options/opt_level.h"

namespace kiln {

// $KILN_CONFIG_DIR, else <prefix>/share/kiln/configs beside the running binary (when it has pipelines/), else
// the source tree's configs/ (for a build that was not installed).
std::filesystem::path ConfigDir();
// ConfigDir()/pipelines, and the shipped file of a level in it.
std::filesystem::path ShippedPipelineDir();
std::filesystem::path ShippedPipelineFile(OptLevel level);

// The file `extends: target` names in a pipeline file of `base_dir`: for a level name (O0..O3, as `level:`
// accepts it) the shipped file of that level in `shipped_dir` (empty: ShippedPipelineDir()); for anything else
// the path, relative to `base_dir` unless absolute. A file named like a level is written as a path (./O1).
std::filesystem::path ExtendsTargetFile(std::string_view target, const std::filesystem::path& base_dir,
                                        const std::filesystem::path& shipped_dir = {});

}  // namespace kiln
