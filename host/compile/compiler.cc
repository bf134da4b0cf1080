#include "compile/compiler.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>

#include "driver/pass_driver.h"
#include "ir/model.h"
#include "onnx/onnx_export.h"
#include "options/core_options.h"
#include "pipeline/pipeline_loader.h"
#include "plugin/plugin_pass.h"
#include "plugin/plugin_search.h"
#include "support/error.h"

namespace kiln {
namespace fs = std::filesystem;

fs::path ConfigDir() {
  if (const char* env = std::getenv("KILN_CONFIG_DIR"); env && *env) return env;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path installed = exe.parent_path().parent_path() / "share" / "kiln" / "configs";
    if (fs::exists(installed / "pipelines")) return installed;
  }
  return fs::path(KILN_SOURCE_DIR) / "configs";
}

fs::path ShippedPipelineFile(OptLevel level) {
  return ConfigDir() / "pipelines" / (std::string(OptLevelName(level)) + ".yaml");
}

Compiler::Compiler() {
  RegisterCoreOptions(options_);
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
  // The pipeline's plugins come before the search path's (the first registration of a name wins).
  if (fs::exists(file)) plugins_.LoadPipelinePlugins(plugin::ReadPipelinePlugins(file));
  plugins_.LoadSearchPath();
}

ResolvedPipeline Compiler::Resolve(const CompileRequest& request) {
  OptionLayers layers{request.graph, request.session, nullptr};
  OptLevel level = ResolveLevel(options_, layers);
  fs::path file = request.pipeline_file ? *request.pipeline_file : ShippedPipelineFile(level);
  if (!fs::exists(file)) throw ConfigError(file.string() + ": no such pipeline file");
  LoadPluginsFor(request);  // before the pipeline is loaded: its passes may be plugins'
  Pipeline pipeline = LoadPipelineFile(file, options_, passes_);
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
  return ResolvedPipeline{std::move(pipeline), std::move(options), std::move(plan)};
}

namespace {

std::vector<std::pair<std::string, std::string>> ArgsOf(const PassRef& ref) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const PassArg& a : ref.args) out.emplace_back(a.key, a.value);
  return out;
}

nlohmann::json StatsJson(const PassStats& s) {
  return {{"name", s.name},       {"runs", s.runs},         {"changes", s.changes},
          {"failures", s.failures}, {"seconds", s.seconds}, {"counters", s.counters}};
}

}  // namespace

nlohmann::json Compiler::Run(Model& model, const ResolvedPipeline& resolved, const CompileRequest& request) const {
  plugin::PluginCompileScope plugin_scope(resolved.options);  // what plugin passes read their options from
  kernels_.ResetStats();  // the report's "kernels" are this compile's
  nlohmann::json report;
  report["level"] = std::string(OptLevelName(resolved.plan.level));
  report["pipeline"] = resolved.pipeline.files.empty() ? "" : resolved.pipeline.files.front();
  report["options"] = resolved.options.ToJson()["options"];
  report["stages"] = nlohmann::json::array();
  int dump_index = 0;
  for (const PlannedStage& stage : resolved.plan.stages) {
    auto t0 = std::chrono::steady_clock::now();
    DriverOptions dopts;
    dopts.verify_each = request.verify_each;
    dopts.strict = request.strict;
    if (request.progress) dopts.progress = [&](uint64_t v) { request.progress(stage.name, v); };
    if (!request.dump_dir.empty()) {
      dopts.after_step = [&](const std::vector<std::string>& names) {
        bool want = false;
        for (const auto& d : request.dump_after)
          for (const auto& n : names) want = want || d == "all" || d == n;
        if (!want) return;
        std::string label = names.size() == 1 ? names[0] : "walk";
        char prefix[16];
        std::snprintf(prefix, sizeof prefix, "%03d", ++dump_index);
        WriteModel(model, (request.dump_dir / (std::string(prefix) + "-" + stage.name + "-" + label + ".onnx")).string());
      };
    }
    PassDriver driver(model, dopts);
    nlohmann::json skipped = nlohmann::json::array();
    std::vector<std::unique_ptr<NodePass>> owned_node;
    std::vector<std::unique_ptr<GraphPass>> owned_graph;
    std::vector<NodePass*> walk;
    auto flush = [&](const std::vector<NodePass*>& after) {
      if (!walk.empty() || !after.empty()) driver.RunNodePasses(walk, after);
      walk.clear();
    };
    for (const PlannedPass& pp : stage.passes) {
      if (!pp.decision.run) {
        skipped.push_back({{"name", pp.pass.name}, {"reason", pp.decision.reason}});
        continue;
      }
      const PassInfo* info = passes_.Find(pp.pass.name);
      if (info == nullptr) throw ConfigError(pp.pass.pos.ToString() + ": unknown pass '" + pp.pass.name + "'");
      PassArgs args = passes_.CompleteArgs(*info, ArgsOf(pp.pass));
      if (info->kind == PassInfo::Kind::kNode) {
        owned_node.push_back(info->make_node(args));
        walk.push_back(owned_node.back().get());
      } else {
        flush({});
        owned_graph.push_back(info->make_graph(args));
        driver.RunGraphPass(*owned_graph.back());
      }
    }
    std::vector<NodePass*> after;
    for (const PlannedPass& pp : stage.after_walk) {
      if (!pp.decision.run) {
        skipped.push_back({{"name", pp.pass.name}, {"reason", pp.decision.reason}});
        continue;
      }
      const PassInfo* info = passes_.Find(pp.pass.name);
      if (info == nullptr || info->kind != PassInfo::Kind::kNode)
        throw ConfigError(pp.pass.pos.ToString() + ": after_walk needs a node pass, '" + pp.pass.name + "' is not one");
      owned_node.push_back(info->make_node(passes_.CompleteArgs(*info, ArgsOf(pp.pass))));
      after.push_back(owned_node.back().get());
    }
    flush(after);
    nlohmann::json sj;
    sj["name"] = stage.name;
    sj["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    sj["passes"] = nlohmann::json::array();
    for (const PassStats& s : driver.stats()) sj["passes"].push_back(StatsJson(s));
    sj["skipped"] = skipped;
    report["stages"].push_back(std::move(sj));
  }
  report["kernels"] = kernels_.StatsJson();  // calls, unsupported answers and time per level and op type
  return report;
}

}  // namespace kiln
