// One compile of one model: resolve the options (graph > session > pipeline > default), load the pipeline for the
// level, plan it (which passes run), walk each stage with the pass driver, and build the report. A Compiler holds
// what a session shares between compiles: the option registry and the pass registry (host built-ins plus what
// plugins registered). The CLI and the embedding API drive it through one CompileFlow (compile_flow.h).
//
// Targets: Resolve finds the target oo.target names among the loaded plugins' (an unknown name, or a target
// registered by name only, is a ConfigError listing the known ones). Run makes it the active target for the
// whole run (host/target/active_target.h), so any pass may ask it, and ends with the target's task stream of
// the final graph (host/target/trace.h): its totals in the report's "target" section, its trace events where
// the request asks for them.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "options/option_layer.h"
#include "options/option_registry.h"
#include "kernels/kernel_registry.h"
#include "passes/pass_registry.h"
#include "pipeline/pipeline.h"
#include "pipeline/pipeline_plan.h"
#include "pipeline/shipped_pipelines.h"  // ConfigDir, ShippedPipelineFile
#include "plugin/plugin_set.h"

namespace kiln {

class Model;
class Node;

struct CompileRequest {
  const OptionLayer* session = nullptr;  // the CLI's flags land here
  const OptionLayer* graph = nullptr;    // per-graph options (embedding API)
  std::optional<std::filesystem::path> pipeline_file;  // a user's pipeline instead of the level's shipped one
  bool verify_each = false;
  bool strict = false;
  std::filesystem::path dump_dir;     // empty: no dumps
  std::vector<std::string> dump_after;  // pass names, or "all"
  std::function<void(const std::string& stage, uint64_t visits)> progress;
  // With an active target: where to put the Chrome trace-event JSON of the final graph's task stream (null: only
  // the report's totals are made). A target callback failing while it is made is then a PluginError, as under
  // `strict`; otherwise a warning and the report's target.error.
  nlohmann::json* trace_events = nullptr;
  std::string model_name;  // for the trace's metadata
  // Hooks for kiln bisect (host/compile/bisect.h): after each step of a stage (a walk or a graph pass; after the
  // dumps), with the stage's name and the passes of the step; and after each kept node-pass call that changed
  // the graph (DriverOptions::after_change). Either may throw to end the run.
  std::function<void(const std::string& stage, const std::vector<std::string>& passes)> after_step;
  std::function<void(const std::string& pass, const Node* node)> after_change;
};

// The pipeline a request resolves to, with its options and plan (also what --print-pipeline prints).
struct ResolvedPipeline {
  Pipeline pipeline;
  ResolvedOptions options;
  PipelinePlan plan;
  std::shared_ptr<const plugin::PluginTarget> target;  // oo.target's; null when it is empty
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
  // Loads the plugins the request's pipeline lists, then those of the search path: what Resolve does first.
  // CompileFlow::SetOptions calls it before setting options, which may name a plugin's; only oo.level need be set.
  void LoadPluginsFor(const CompileRequest& request);

  // Resolves level, pipeline file, options and plan, after loading the plugins the pipeline lists and those of
  // the search path. Throws ConfigError with file:line:column on a bad pipeline, PluginError for a plugin.
  ResolvedPipeline Resolve(const CompileRequest& request);
  // The error text for an option name nothing registered: the registry's ("unknown option 'x'; did you mean
  // 'y'?"), and, when no registered name is near, the plugins that are loaded (an option may be a plugin's that
  // is not loaded: oo.constantFolding and its kin belong to the folding plugin).
  std::string UnknownOptionMessage(std::string_view name) const;
  // Throws ConfigError when an option naming a file a pass writes (memory.plan, fusion.report) is set but no pass
  // of the plan that writes it runs (the file would silently not appear).
  void CheckFileOptionsHaveAWriter(const ResolvedOptions& options, const PipelinePlan& plan,
                                   const Pipeline& pipeline) const;
  // The target that oo.target names in `options` (null for ""). Throws ConfigError for an unknown name or a
  // target registered by name only, listing the targets that can be used.
  std::shared_ptr<const plugin::PluginTarget> ResolveTarget(const ResolvedOptions& options) const;
  // "known targets: a (plugin p), b (plugin q)", or that no loaded plugin registers one.
  std::string KnownTargetsText() const;
  // Calls the prepare hook (PassInfo::prepare) of each pass the resolved pipeline runs, once a pass, so that
  // passes can start work that needs no model while it is read. A failing hook is a warning: the pass still runs.
  void PreparePasses(const ResolvedPipeline& resolved) const;
  // Runs the resolved pipeline on `model`, returning the report ("stages", "options", ...).
  nlohmann::json Run(Model& model, const ResolvedPipeline& resolved, const CompileRequest& request) const;

 private:
  const PassInfo& RunnablePass(const PlannedPass& pp, PassInfo::Kind kind, const std::string& wrong_kind) const;
  // The report's "target" section, and the trace events when the request asks for them.
  nlohmann::json TargetSection(Model& model, const plugin::PluginTarget& target, const CompileRequest& request) const;

  OptionRegistry options_;
  PassRegistry passes_;
  KernelRegistry kernels_;
  // Pipeline files whose plugins LoadPluginsFor loaded, with the time each was written then.
  std::map<std::filesystem::path, std::filesystem::file_time_type> pipelines_with_plugins_;
  plugin::PluginSet plugins_{options_, passes_, kernels_};  // last: unloaded before the registries go
};

}  // namespace kiln
