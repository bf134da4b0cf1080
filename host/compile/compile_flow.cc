// The compile flow the CLI and the embedding API share; see compile_flow.h.
#include "compile/compile_flow.h"

#include <utility>

#include "compile/resource_limits.h"
#include "ir/model.h"
#include "options/core_options.h"
#include "report/model_summary.h"
#include "shape/node_checks.h"
#include "support/error.h"
#include "support/process_memory.h"

namespace kiln {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

bool RunsAnyPass(const PipelinePlan& plan) {
  for (const PlannedStage& stage : plan.stages)
    for (const PlannedStep& step : StageSteps(stage))
      if (step.Runs()) return true;
  return false;
}

bool IsNearMiss(const OptionRegistry& registry, const std::string& name) {
  return registry.UnknownOptionMessage(name).find("did you mean") != std::string::npos;
}

}  // namespace

CompileFlow::CompileFlow(const std::vector<std::string>& plugin_paths,
                         std::optional<std::filesystem::path> pipeline_file)
    : pipeline_file_(std::move(pipeline_file)) {
  compiler_.LoadPlugins(plugin_paths);
}

CompileRequest CompileFlow::Request(const OptionLayer* session, const OptionLayer* graph) const {
  CompileRequest request;
  request.session = session;
  request.graph = graph;
  request.pipeline_file = pipeline_file_;
  return request;
}

std::optional<Error> CompileFlow::LoadPluginsForLevel(const OptionLayer* session, const OptionLayer* graph) {
  try {
    compiler_.LoadPluginsFor(Request(session, graph));
  } catch (const Error& e) {
    if (e.code() != ExitCode::kPlugin) throw;
    return e;
  }
  return std::nullopt;
}

OptionLayer CompileFlow::SetOptions(OptionPlace place, const std::vector<OptionText>& settings,
                                    const OptionLayer* session) {
  const OptionRegistry& known = compiler_.options();
  std::optional<Error> plugin_error;
  {
    // Only oo.level is needed to find the pipeline, and it is the host's: it can be checked before any plugin.
    OptionLayer level_only(place);
    for (const OptionText& s : settings)
      if (s.name == kOptLevelOption) level_only.Set(known, s.name, s.value, s.origin);
    plugin_error = session ? LoadPluginsForLevel(session, &level_only) : LoadPluginsForLevel(&level_only, nullptr);
  }
  OptionLayer layer(place);
  for (const OptionText& s : settings) {
    try {
      layer.Set(known, s.name, s.value, s.origin);
    } catch (const Error& e) {
      if (known.Find(s.name) || IsNearMiss(known, s.name)) throw;
      if (plugin_error) throw *plugin_error;
      throw ConfigError(compiler_.UnknownOptionMessage(s.name));
    }
  }
  return layer;
}

nlohmann::json CompileFlow::Compile(Model& model, const std::string& model_name, const ResolvedPipeline& resolved,
                                    const CompileRequest& request, LoadTimes times,
                                    const std::function<void(Model&)>& write) {
  const ProcessMemory loaded = ReadProcessMemory();
  // The input model's limits come first: nothing else looks at a model over one (compile/resource_limits.h).
  const uint64_t before = CheckModelLimits(model, ResourceLimits::From(resolved.options), model_name);
  // Passes run ONNX's inference functions on the model's nodes: a node they would crash on, or that no runtime could
  // run, is an invalid model, named before any pass starts. A pipeline that runs none (O0) copies the model as it is.
  if (RunsAnyPass(resolved.plan)) CheckModelForInference(model);
  CompileRequest run = request;
  run.model_name = model_name;
  nlohmann::json report = compiler_.Run(model, resolved, run);
  auto optimized = Clock::now();
  const ProcessMemory after_passes = ReadProcessMemory();
  write(model);
  auto written = Clock::now();
  const ProcessMemory after_write = ReadProcessMemory();
  report["model"] = model_name;
  report["nodes_before"] = before;
  report["seconds"] = {{"load", Seconds(times.started, times.loaded)},
                       {"optimize", Seconds(times.loaded, optimized)},
                       {"write", Seconds(optimized, written)},
                       {"total", Seconds(times.started, written)}};
  // The process's resident memory after each phase and its peak so far (in a long-lived process, the peak may be
  // an earlier build's).
  nlohmann::json& memory = report["memory"];
  for (const auto& [phase, m] : {std::pair{"load", loaded}, {"optimize", after_passes}, {"write", after_write}}) {
    memory["rss_bytes"][phase] = m.rss_bytes;
    memory["peak_rss_bytes"][phase] = m.peak_rss_bytes;
  }
  report["summary_after"] = ModelSummary(model);
  report["nodes_after"] = report["summary_after"]["nodes_with_subgraphs"];
  return report;
}

}  // namespace kiln
