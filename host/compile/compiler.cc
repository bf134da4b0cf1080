#include "compile/compiler.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "compile/resource_limits.h"
#include "driver/pass_driver.h"
#include "ir/model.h"
#include "onnx/onnx_export.h"
#include "options/core_options.h"
#include "pipeline/pipeline_loader.h"
#include "plugin/plugin_pass.h"
#include "plugin/plugin_search.h"
#include "shape/shape_inference.h"
#include "support/error.h"
#include "support/logging.h"
#include "support/process_memory.h"
#include "target/active_target.h"
#include "target/trace.h"
#include "verify/verifier.h"

namespace kiln {
namespace fs = std::filesystem;

Compiler::Compiler() {
  RegisterCoreOptions(options_);
  RegisterLimitOptions(options_);
  RegisterBuiltinPasses(passes_);
  RegisterBuiltinKernels(kernels_);
}

void Compiler::LoadPlugins(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) plugins_.LoadPath(path);
}

void Compiler::LoadSearchPathPlugins() { plugins_.LoadSearchPath(); }

void Compiler::LoadPluginsFor(const CompileRequest& request) {
  OptLevel level = ResolveLevel(options_, OptionLayers{request.graph, request.session, nullptr});
  fs::path file = request.pipeline_file ? *request.pipeline_file : ShippedPipelineFile(level);
  // The pipeline's plugins come before the search path's (the first registration of a name wins). CompileFlow asks
  // before it sets options and Resolve again: a pipeline file whose plugins all loaded is not read again unless it
  // changed since (a session compiles many times).
  std::error_code missing;  // no such file: Resolve says so
  const fs::file_time_type written = fs::last_write_time(file, missing);
  auto it = pipelines_with_plugins_.find(file);
  if (!missing && (it == pipelines_with_plugins_.end() || it->second != written)) {
    plugins_.LoadPipelinePlugins(plugin::ReadPipelinePlugins(file));
    pipelines_with_plugins_[file] = written;
  }
  plugins_.LoadSearchPath();
}

ResolvedPipeline Compiler::Resolve(const CompileRequest& request) {
  OptionLayers layers{request.graph, request.session, nullptr};
  OptLevel level = ResolveLevel(options_, layers);
  fs::path file = request.pipeline_file ? *request.pipeline_file : ShippedPipelineFile(level);
  if (!fs::exists(file)) throw ConfigError(file.string() + ": no such pipeline file");
  LoadPluginsFor(request);  // before the pipeline is loaded: its passes may be plugins'
  PipelineLoadOptions load;
  load.unknown_option_message = [this](std::string_view name) { return UnknownOptionMessage(name); };
  Pipeline pipeline = LoadPipelineFile(file, options_, passes_, load);
  if (request.pipeline_file) {
    bool level_set = (request.graph && request.graph->Find(kOptLevelOption)) ||
                     (request.session && request.session->Find(kOptLevelOption));
    if (level_set && level != pipeline.level)
      throw ConfigError(file.string() + ": the pipeline is for " + std::string(OptLevelName(pipeline.level)) +
                        " but oo.level is " + std::string(OptLevelName(level)) + "; drop one of them");
  }
  layers.pipeline = &pipeline.options;
  ResolvedOptions options = ResolveOptions(options_, pipeline.level, layers);
  PipelinePlan plan = PlanPipeline(pipeline, options, passes_);
  CheckFileOptionsHaveAWriter(options, plan, pipeline);
  auto target = ResolveTarget(options);
  return ResolvedPipeline{std::move(pipeline), std::move(options), std::move(plan), std::move(target)};
}

namespace {

// Options that name a file a pass writes: asking for the file when no pass of the plan writes it would leave the
// user without it and without a word, so the compile stops first.
struct FileOption {
  const char* option;
  const char* flag;
  std::vector<std::string> writers;
  const char* where;  // where the writers run in the shipped pipelines
};

// Whether one of names runs; *skipped gets the first listed one's skip reason.
bool Runs(const PipelinePlan& plan, const std::vector<std::string>& names, std::string* skipped) {
  for (const PlannedStage& stage : plan.stages)
    for (const auto* list : {&stage.passes, &stage.after_walk})
      for (const PlannedPass& p : *list) {
        if (std::find(names.begin(), names.end(), p.pass.name) == names.end()) continue;
        if (p.decision.run) return true;
        if (skipped->empty()) *skipped = p.pass.name + " is skipped (" + p.decision.reason + ")";
      }
  return false;
}

}  // namespace

void Compiler::CheckFileOptionsHaveAWriter(const ResolvedOptions& options, const PipelinePlan& plan,
                                           const Pipeline& pipeline) const {
  static const std::vector<FileOption> kFileOptions = {
      {"memory.plan", "--memory-plan", {"MemoryPlanningPass"}, "the Build stage of O2 and O3"},
      {"fusion.report", "--fusion-report", {"PatternFusionPass", "AutoFusionPass"}, "the Autofuse stage of O2 and O3"},
  };
  for (const FileOption& f : kFileOptions) {
    const ResolvedOption* o = options.Find(f.option);
    std::string skipped;
    if (o == nullptr || !o->active() || !std::holds_alternative<std::string>(o->value) ||
        std::get<std::string>(o->value).empty() || Runs(plan, f.writers, &skipped))
      continue;
    std::string names;
    for (const std::string& w : f.writers) names += (names.empty() ? "" : " or ") + w;
    const std::string why = !skipped.empty() ? skipped
                                             : names + " is not in pipeline " +
                                                   std::string(OptLevelName(pipeline.level)) + " (it runs in " +
                                                   f.where + "; use --oo.level=O2 or O3, or add it to your pipeline)";
    throw ConfigError(std::string(f.flag) + " (" + f.option + "): no pass of this compile writes it: " + why +
                      ". Nothing was written.");
  }
}

std::string Compiler::KnownTargetsText() const {
  std::string known;
  for (const auto& t : plugins_.Targets())
    if (!t->bare) known += (known.empty() ? "" : ", ") + t->name + " (plugin " + t->plugin + ")";
  if (!known.empty()) return "known targets: " + known;
  std::string loaded;
  for (const auto& p : plugins_.plugins()) loaded += (loaded.empty() ? "" : ", ") + p->name;
  return "no loaded plugin registers a target (loaded plugins: " + (loaded.empty() ? std::string("none") : loaded) +
         "; `kiln targets` lists them, --plugin PATH loads one)";
}

std::shared_ptr<const plugin::PluginTarget> Compiler::ResolveTarget(const ResolvedOptions& options) const {
  const ResolvedOption* option = options.Find(kTargetOption);
  if (option == nullptr || !option->active()) return nullptr;
  const std::string& name = std::get<std::string>(option->value);
  if (name.empty()) return nullptr;
  std::string where = "option " + std::string(kTargetOption) +
                      (option->origin.empty() ? "" : ", from " + option->origin);
  auto target = plugins_.FindTarget(name);
  if (!target) throw ConfigError("unknown target '" + name + "' (" + where + "); " + KnownTargetsText());
  if (target->bare)
    throw ConfigError("target '" + name + "' (" + where + ") of plugin " + target->plugin + " (ABI " +
                      plugin::AbiVersionText(target->plugin_abi) +
                      ") registered only its name, with no engines or cost model, so it cannot be the active "
                      "target (that needs ABI 1.3's KilnTargetInfo); " + KnownTargetsText());
  return target;
}

std::string Compiler::UnknownOptionMessage(std::string_view name) const {
  std::string message = options_.UnknownOptionMessage(name);
  if (message.find("did you mean") != std::string::npos) return message;
  std::string loaded;
  for (const auto& plugin : plugins_.plugins()) loaded += (loaded.empty() ? "" : ", ") + plugin->name;
  return message + " (neither the host nor a loaded plugin registers it; loaded plugins: " +
         (loaded.empty() ? std::string("none") : loaded) + ")";
}

namespace {

std::vector<std::pair<std::string, std::string>> ArgsOf(const PassRef& ref) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const PassArg& a : ref.args) out.emplace_back(a.key, a.value);
  return out;
}

}  // namespace

// The registry's pass for a planned pass that runs, of the kind `kind`. `wrong_kind`: the message when it is
// unknown or of the other kind (an after_walk entry); "" where the plan, made from this registry, cannot disagree.
const PassInfo& Compiler::RunnablePass(const PlannedPass& pp, PassInfo::Kind kind,
                                       const std::string& wrong_kind) const {
  const PassInfo* info = passes_.Find(pp.pass.name);
  if ((info == nullptr || info->kind != kind) && !wrong_kind.empty())
    throw ConfigError(pp.pass.pos.ToString() + ": " + wrong_kind);
  if (info == nullptr) throw ConfigError(pp.pass.pos.ToString() + ": unknown pass '" + pp.pass.name + "'");
  if (info->kind != kind) {
    throw InternalError("pass " + pp.pass.name + " was planned as a " +
                        (kind == PassInfo::Kind::kNode ? "node" : "graph") + " pass but is not one");
  }
  return *info;
}

void Compiler::PreparePasses(const ResolvedPipeline& resolved) const {
  std::set<std::string> prepared;
  for (const PlannedStage& stage : resolved.plan.stages)
    for (const auto* list : {&stage.passes, &stage.after_walk})
      for (const PlannedPass& pp : *list) {
        if (!pp.decision.run || !prepared.insert(pp.pass.name).second) continue;
        const PassInfo* info = passes_.Find(pp.pass.name);
        if (info == nullptr || !info->prepare) continue;
        try {
          info->prepare();
        } catch (const std::exception& e) {
          Logger("driver")->warn("{}; the pass runs unprepared", e.what());
        }
      }
}

namespace {

nlohmann::json StatsJson(const PassStats& s) {
  nlohmann::json j = {{"name", s.name},         {"runs", s.runs},       {"changes", s.changes},
                      {"failures", s.failures}, {"seconds", s.seconds}, {"counters", s.counters}};
  if (!s.reports.empty()) j["reports"] = s.reports;
  if (!s.failure_messages.empty()) j["failure_messages"] = s.failure_messages;
  return j;
}

// The steps of a stage that raised the process's peak resident memory by at least 1 MiB, with how much: where a
// large model's peak is made. A walk names every pass that ran in it (or after it). Each reading after a step is
// the next step's starting point, and the last is the stage's peak.
struct PeakRaisers {
  void After(const PlannedStep& step) {
    const uint64_t before = peak;
    peak = PeakRssBytes();
    if (peak < before + (uint64_t{1} << 20)) return;
    nlohmann::json names = nlohmann::json::array();
    for (const auto* list : {&step.passes, &step.after_walk})
      for (const PlannedPass* pp : *list)
        if (pp->decision.run) names.push_back(pp->pass.name);
    steps.push_back({{"passes", std::move(names)}, {"bytes", peak - before}});
  }
  uint64_t peak = PeakRssBytes();
  nlohmann::json steps = nlohmann::json::array();
};

// For --verify-each: the input's own breaches of the spec that only show once its values are typed (an opset-6
// Constant holding int64 breaks Constant-1's type constraint as soon as inference types its output). Checking after
// every pass would blame the first pass after which they show (InferShapePass) for what the input brought, so they
// are found first, with the input's types inferred in a transaction rolled back afterwards, reported once as the
// input's (a warning and the report's "input_issues"), and left out of the checks after each pass. Issues of the
// input as read, before inference, are among them. When inference itself fails here, nothing is left out: the
// pipeline's own InferShapePass meets that failure as before.
std::shared_ptr<const IssueSet> InputIssues(Model& model, nlohmann::json& report) {
  auto known = std::make_shared<IssueSet>();
  std::vector<VerifyIssue> issues;
  try {
    InferredShapesScope typed(model);
    issues = VerifyModel(model);
  } catch (const std::exception& e) {
    Logger("verify")->debug("the input's types could not be inferred before the first pass: {}", e.what());
    return known;
  }
  nlohmann::json listed = nlohmann::json::array();
  for (const VerifyIssue& i : issues)
    if (auto [at, added] = known->insert(IssueText(i)); added) listed.push_back(*at);
  report["input_issues"] = listed;
  if (!issues.empty())
    Logger("verify")->warn("the input model breaks the ONNX spec once its types are inferred ({} problem{}, first: "
                           "{}); --verify-each does not count these against any pass",
                           listed.size(), listed.size() == 1 ? "" : "s", listed.front().get<std::string>());
  return known;
}

}  // namespace

nlohmann::json Compiler::Run(Model& model, const ResolvedPipeline& resolved, const CompileRequest& request) const {
  plugin::PluginCompileScope plugin_scope(resolved.options);  // what plugin passes read their options from
  target::ActiveTargetScope target_scope(resolved.target.get());  // what the target_* slots forward to
  kernels_.ResetStats();  // the report's "kernels" are this compile's
  const ResourceLimits limits = ResourceLimits::From(resolved.options);
  CreatedTensorScope created(limits);  // limits.maxFoldedBytes and limits.maxTensorBytes, checked by the slots
  nlohmann::json report;
  report["level"] = std::string(OptLevelName(resolved.plan.level));
  report["pipeline"] = resolved.pipeline.files.empty() ? "" : resolved.pipeline.files.front();
  report["options"] = resolved.options.ToJson()["options"];
  report["stages"] = nlohmann::json::array();
  int dump_index = 0;
  std::shared_ptr<const IssueSet> input_issues;
  if (request.verify_each) input_issues = InputIssues(model, report);
  for (const PlannedStage& stage : resolved.plan.stages) {
    auto t0 = std::chrono::steady_clock::now();
    DriverOptions dopts;
    dopts.verify_each = request.verify_each;
    dopts.known_issues = input_issues;
    dopts.strict = request.strict;
    dopts.pass_seconds = limits.pass_seconds;
    dopts.after_change = request.after_change;
    if (request.progress) dopts.progress = [&](uint64_t v) { request.progress(stage.name, v); };
    if (!request.dump_dir.empty() || request.after_step) {
      dopts.after_step = [&](const std::vector<std::string>& names) {
        bool want = false;
        for (const auto& d : request.dump_after)
          for (const auto& n : names) want = want || d == "all" || d == n;
        if (want && !request.dump_dir.empty()) {
          std::string label = names.size() == 1 ? names[0] : "walk";
          char prefix[16];
          std::snprintf(prefix, sizeof prefix, "%03d", ++dump_index);
          WriteModel(model,
                     (request.dump_dir / (std::string(prefix) + "-" + stage.name + "-" + label + ".onnx")).string());
        }
        if (request.after_step) request.after_step(stage.name, names);
      };
    }
    PassDriver driver(model, dopts);
    nlohmann::json skipped = nlohmann::json::array();
    for (const auto* list : {&stage.passes, &stage.after_walk})
      for (const PlannedPass& pp : *list)
        if (!pp.decision.run) skipped.push_back({{"name", pp.pass.name}, {"reason", pp.decision.reason}});
    // The steps --print-pipeline shows (pipeline_plan.h): a graph pass that runs ends the walk before it, and the
    // after-walk passes join the last walk. A graph pass object lives until the stage ends; a walk's node passes go
    // with the walk (below).
    std::vector<std::unique_ptr<GraphPass>> owned_graph;
    PeakRaisers raisers;
    for (const PlannedStep& step : StageSteps(stage)) {
      if (!step.Runs()) continue;
      if (step.kind == PlannedStep::Kind::kGraphPass) {
        const PlannedPass& pp = *step.passes.front();
        const PassInfo& info = RunnablePass(pp, PassInfo::Kind::kGraph, "");
        owned_graph.push_back(info.make_graph(passes_.CompleteArgs(info, ArgsOf(pp.pass))));
        driver.RunGraphPass(*owned_graph.back());
        raisers.After(step);
        continue;
      }
      // The walk's passes go with it: a node pass keeps its changing calls' journals to the end of its walk.
      std::vector<std::unique_ptr<NodePass>> owned_node;
      std::vector<NodePass*> walk, after;
      for (const PlannedPass* pp : step.passes) {
        if (!pp->decision.run) continue;
        const PassInfo& info = RunnablePass(*pp, PassInfo::Kind::kNode, "");
        owned_node.push_back(info.make_node(passes_.CompleteArgs(info, ArgsOf(pp->pass))));
        walk.push_back(owned_node.back().get());
      }
      for (const PlannedPass* pp : step.after_walk) {
        if (!pp->decision.run) continue;
        const std::string not_node = "after_walk needs a node pass, '" + pp->pass.name + "' is not one";
        const PassInfo& info = RunnablePass(*pp, PassInfo::Kind::kNode, not_node);
        owned_node.push_back(info.make_node(passes_.CompleteArgs(info, ArgsOf(pp->pass))));
        after.push_back(owned_node.back().get());
      }
      driver.RunNodePasses(walk, after);
      raisers.After(step);
    }
    nlohmann::json sj;
    sj["name"] = stage.name;
    sj["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    sj["passes"] = nlohmann::json::array();
    for (const PassStats& s : driver.stats()) sj["passes"].push_back(StatsJson(s));
    sj["skipped"] = skipped;
    sj["peak_rss_bytes"] = raisers.peak;
    sj["peak_rss_raised_by"] = std::move(raisers.steps);
    report["stages"].push_back(std::move(sj));
  }
  report["kernels"] = kernels_.StatsJson();  // calls, unsupported answers and time per level and op type
  if (resolved.target) report["target"] = TargetSection(model, *resolved.target, request);
  return report;
}

nlohmann::json Compiler::TargetSection(Model& model, const plugin::PluginTarget& target,
                                       const CompileRequest& request) const {
  nlohmann::json section = {{"name", target.name}, {"plugin", target.plugin}, {"engines", target.engines}};
  // The target's estimates need shapes, which a level that ran no shape inference (O0) has not given the model:
  // they are inferred for the trace only, in a transaction rolled back afterwards, so the output stays as it was.
  InferredShapesScope shapes(model);
  try {
    target::TargetTrace trace = target::BuildTrace(model, target);
    section["totals"] = target::TraceTotalsJson(trace);
    if (request.trace_events) *request.trace_events = target::TraceEventsJson(trace, request.model_name);
  } catch (const plugin::SlotError& e) {
    std::string what = std::string("the task stream of target '") + target.name + "' could not be made: " + e.what() +
                       " [" + plugin::StatusCodeName(e.code()) + "]";
    if (request.trace_events || request.strict) throw PluginError(what);
    Logger("target")->warn("{}", what);
    section["error"] = what;
  }
  return section;
}

}  // namespace kiln
