// One compile of one model: resolve the options (graph > session > pipeline > default), load the pipeline for the
// level, plan it (which passes run), walk each stage with the pass driver, and build the report. The CLI and the
// embedding API both go through a Compiler, which holds what a session shares between compiles: the option
// registry and the pass registry (host built-ins plus what plugins registered).
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "options/option_layer.h"
#include "options/option_registry.h"
#include "passes/pass_registry.h"
#include "pipeline/pipeline.h"
#include "pipeline/pipeline_plan.h"

namespace kiln {

class Model;

struct CompileRequest {
  const OptionLayer* session = nullptr;  // the CLI's flags land here
  const OptionLayer* graph = nullptr;    // per-graph options (embedding API)
  std::optional<std::filesystem::path> pipeline_file;  // a user's pipeline instead of the level's shipped one
  bool verify_each = false;
  bool strict = false;
  std::filesystem::path dump_dir;     // empty: no dumps
  std::vector<std::string> dump_after;  // pass names, or "all"
  std::function<void(const std::string& stage, uint64_t visits)> progress;
};

// The pipeline a request resolves to, with its options and plan (also what --print-pipeline prints).
struct ResolvedPipeline {
  Pipeline pipeline;
  ResolvedOptions options;
  PipelinePlan plan;
};

class Compiler {
 public:
  Compiler();  // registers the core options and the host's built-in passes

  OptionRegistry& options() { return options_; }
  const OptionRegistry& options() const { return options_; }
  PassRegistry& passes() { return passes_; }
  const PassRegistry& passes() const { return passes_; }

  // Resolves level, pipeline file, options and plan. Throws ConfigError with file:line:column on a bad pipeline.
  ResolvedPipeline Resolve(const CompileRequest& request) const;
  // Runs the resolved pipeline on `model`, returning the report ("stages", "options", ...).
  nlohmann::json Run(Model& model, const ResolvedPipeline& resolved, const CompileRequest& request) const;

 private:
  OptionRegistry options_;
  PassRegistry passes_;
};

// Where the shipped pipelines live: $KILN_CONFIG_DIR, else <prefix>/share/kiln/configs beside the running
// binary, else the source tree's configs/ (for a build that was not installed).
std::filesystem::path ConfigDir();
std::filesystem::path ShippedPipelineFile(OptLevel level);

}  // namespace kiln
