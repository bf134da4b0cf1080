// Loading a pipeline from YAML: parses the file with yaml-cpp, follows `extends` (a level, O0..O3, for that
// level's shipped file, or a path relative to the file; shipped_pipelines.h), applies the child's edits to the
// parent's stages, and validates everything as it goes. Every error is a ConfigError that starts
// "file:line:column: " and says what was expected. The syntax is documented in configs/pipelines/README.md.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "options/option_registry.h"
#include "pipeline/pass_catalog.h"
#include "pipeline/pipeline.h"

namespace kiln {

// What to do with a pass name the catalog does not know.
enum class UnknownPassPolicy {
  kError,  // a ConfigError naming the registered passes (the default)
  kWarn,   // keep the pass and add a warning to Pipeline::warnings
  kIgnore  // keep the pass silently (e.g. to print a pipeline before its plugins are loaded)
};

// GE's stage names, in the order they run.
std::vector<std::string> DefaultStageNames();

struct PipelineLoadOptions {
  UnknownPassPolicy unknown_passes = UnknownPassPolicy::kError;
  // Stage names a file may use; an unknown one is an error with the nearest name. Empty: any name.
  std::vector<std::string> known_stages = DefaultStageNames();
  // Where `extends: O1` finds O1.yaml; empty: the shipped pipelines' folder (ShippedPipelineDir()).
  std::filesystem::path shipped_dir;
  // The message for an option name in `options:` that the registry does not know; empty: the registry's own
  // ("unknown option 'x'; did you mean 'y'?"). The Compiler adds which plugins are loaded.
  std::function<std::string(std::string_view name)> unknown_option_message;
};

// Loads `path` and every file it extends.
Pipeline LoadPipelineFile(const std::filesystem::path& path, const OptionRegistry& registry, const PassCatalog& catalog,
                          const PipelineLoadOptions& options = {});

// Loads YAML text that did not come from a file (the embedding API): `display_name` names it in messages and
// `extends` resolves against `base_dir`.
Pipeline LoadPipelineText(std::string_view yaml, const std::string& display_name, const std::filesystem::path& base_dir,
                          const OptionRegistry& registry, const PassCatalog& catalog,
                          const PipelineLoadOptions& options = {});

}  // namespace kiln
