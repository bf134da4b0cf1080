// The one compile flow that `kiln compile` (host/cli/compile_command.cc) and the embedding API (host/api/session.cc)
// share. A CompileFlow owns the Compiler (registries and loaded plugins) and takes a compile through its steps:
//
//   CompileFlow flow(plugin_paths, pipeline_file);           // --plugin / SessionConfig::plugins, loaded first
//   OptionLayer session = flow.SetOptions(place, settings);  // the pipeline's and the search path's plugins, then
//                                                            // the settings (they may name plugins' options)
//   CompileRequest request = flow.Request(&session, graph);  // plus the caller's verify, strict, dumps, progress
//   ResolvedPipeline resolved = flow.Resolve(request);       // level, pipeline, options, plan (--print-pipeline)
//   nlohmann::json report = flow.Compile(model, name, resolved, request, times, write);   // run, write, report
//
// What stays with the callers: the CLI parses its flags, checks its paths, loads the model after resolving and
// writes the output file atomically; the API loads from a path, bytes or an IR model before resolving, serializes
// to bytes, and turns every error into a Status. Both get the same exit codes, messages and report keys.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compile/compiler.h"
#include "options/option_layer.h"
#include "support/error.h"

namespace kiln {

class Model;

// One option setting as a caller was given it.
struct OptionText {
  std::string name;    // "oo.level"
  std::string value;   // "O1"
  std::string origin;  // for the report: "--oo.level=O1", "session", "graph"
};

// When loading the model began and ended (equal for a model handed over in memory), for the report's seconds.
struct LoadTimes {
  std::chrono::steady_clock::time_point started, loaded;
};

class CompileFlow {
 public:
  // A Compiler with `plugin_paths` (plugin files, or directories whose lib*.so are all loaded) loaded first, so
  // that they come first in the search order. `pipeline_file`: a user's pipeline instead of the level's shipped
  // one. Throws PluginError.
  CompileFlow(const std::vector<std::string>& plugin_paths, std::optional<std::filesystem::path> pipeline_file);

  Compiler& compiler() { return compiler_; }
  const Compiler& compiler() const { return compiler_; }

  // A layer of `place` holding `settings` in order (a later setting of a name replaces an earlier one). The
  // settings may name plugins' options, so the plugins of the pipeline that oo.level selects (oo.level of
  // `settings`, over that of `session` when this is a graph layer) and those of the search path are loaded first.
  // A pipeline plugin that fails to load is not reported here, unless a setting is an unknown option that is no
  // near miss of a known one: it may be that plugin's, and the plugin's error is the better message (Resolve
  // reports the plugin otherwise). An unknown option that no loaded plugin explains says which plugins are
  // loaded. Throws ConfigError, PluginError.
  OptionLayer SetOptions(OptionPlace place, const std::vector<OptionText>& settings,
                         const OptionLayer* session = nullptr);

  // A request over these layers (either may be null) and the flow's pipeline file.
  CompileRequest Request(const OptionLayer* session, const OptionLayer* graph) const;

  // Compiler::Resolve: level, pipeline file, options and plan.
  ResolvedPipeline Resolve(const CompileRequest& request) { return compiler_.Resolve(request); }
  // Compiler::PreparePasses: call between Resolve and reading the model.
  void Prepare(const ResolvedPipeline& resolved) const { compiler_.PreparePasses(resolved); }

  // Runs the resolved pipeline on `model`, hands the result to `write`, and returns the report: Compiler::Run's,
  // with "model" (`model_name`), "nodes_before", "nodes_after" (subgraphs included), "seconds" {"load": loading,
  // "optimize": from `times.loaded` to the end of the run, "write": `write`, "total": from `times.started`} and
  // "summary_after" (report/model_summary.h). With an active target, "target" (compiler.h) and, when the request
  // asks, the trace events (request.trace_events, named after `model_name`).
  nlohmann::json Compile(Model& model, const std::string& model_name, const ResolvedPipeline& resolved,
                         const CompileRequest& request, LoadTimes times, const std::function<void(Model&)>& write);

 private:
  // Loads the pipeline's plugins for the level of `session` / `graph` and the search path's; a pipeline plugin's
  // PluginError is returned, every other error thrown.
  std::optional<Error> LoadPluginsForLevel(const OptionLayer* session, const OptionLayer* graph);

  Compiler compiler_;
  std::optional<std::filesystem::path> pipeline_file_;
};

}  // namespace kiln
