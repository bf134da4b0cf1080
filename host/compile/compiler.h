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
#include "kernels/kernel_registry.h"
#include "passes/pass_registry.h"
#include "pipeline/pipeline.h"
#include "pipeline/pipeline_plan.h"
#include "plugin/plugin_set.h"

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
  Compiler();  // registers the core options, the host's built-in passes and built-in kernels

  OptionRegistry& options() { return options_; }
  const OptionRegistry& options() const { return options_; }
  PassRegistry& passes() { return passes_; }
  const PassRegistry& passes() const { return passes_; }
  KernelRegistry& kernels() { return kernels_; }
  const KernelRegistry& kernels() const { return kernels_; }

  // The loaded plugins (host/plugin/plugin_set.h): they stay loaded while this Compiler lives.
  plugin::PluginSet& plugins() { return plugins_; }
  const plugin::PluginSet& plugins() const { return plugins_; }
  // Loads plugins given by the user (--plugin): files, or directories whose lib*.so are all loaded. Call before
  // Resolve, so that they come first in the search order. Throws PluginError (exit code 4).
  void LoadPlugins(const std::vector<std::string>& paths);
  // Loads the plugins of KILN_PLUGIN_PATH and the install directory (once).
  void LoadSearchPathPlugins();
  // Loads the plugins the request's pipeline lists, then those of the search path: what Resolve does first. The
  // CLI calls it before parsing option flags, which may name a plugin's options; only oo.level need be set.
  void LoadPluginsFor(const CompileRequest& request);

  // Resolves level, pipeline file, options and plan, after loading the plugins the pipeline lists and those of
  // the search path. Throws ConfigError with file:line:column on a bad pipeline, PluginError for a plugin.
  ResolvedPipeline Resolve(const CompileRequest& request);
  // Runs the resolved pipeline on `model`, returning the report ("stages", "options", ...).
  nlohmann::json Run(Model& model, const ResolvedPipeline& resolved, const CompileRequest& request) const;

 private:
  OptionRegistry options_;
  PassRegistry passes_;
  KernelRegistry kernels_;
  plugin::PluginSet plugins_{options_, passes_, kernels_};  // last: unloaded before the registries go
};

// Where the shipped pipelines live: $KILN_CONFIG_DIR, else <prefix>/share/kiln/configs beside the running
// binary, else the source tree's configs/ (for a build that was not installed).
std::filesystem::path ConfigDir();
std::filesystem::path ShippedPipelineFile(OptLevel level);

}  // namespace kiln
