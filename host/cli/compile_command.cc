// kiln compile MODEL -o OUT: load, optimise with the level's pipeline, write, report.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "api/report_summary.h"
#include "cli/commands.h"
#include "cli/option_flags.h"
#include "compile/compiler.h"
#include "ir/model.h"
#include "onnx/onnx_export.h"
#include "onnx/onnx_import.h"
#include "options/core_options.h"
#include "pipeline/pipeline_printer.h"
#include "report/model_summary.h"
#include "support/atomic_file.h"
#include "support/error.h"
#include "support/logging.h"

namespace kiln::cli {
namespace {
namespace fs = std::filesystem;

struct CompileArgs {
  std::string model, output, pipeline, report, dump_dir, log_level = "warn";
  std::vector<std::string> dump_after, plugins;
  bool print_pipeline = false, verify_each = false, strict = false, in_place = false;
  std::optional<uint64_t> external_threshold;
};

bool SamePath(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec);
  return fs::weakly_canonical(a, ec) == fs::weakly_canonical(b, ec);
}

// Progress on a terminal's stderr once a compile has run for a second.
class Progress {
 public:
  Progress() : tty_(::isatty(STDERR_FILENO) == 1), start_(std::chrono::steady_clock::now()) {}
  void Update(const std::string& stage, uint64_t visits) {
    if (!tty_) return;
    auto elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (elapsed < 1.0) return;
    std::fprintf(stderr, "\rkiln: %s: %llu node visits, %.1f s ", stage.c_str(),
                 static_cast<unsigned long long>(visits), elapsed);
    shown_ = true;
  }
  ~Progress() {
    if (shown_) std::fprintf(stderr, "\n");
  }

 private:
  bool tty_, shown_ = false;
  std::chrono::steady_clock::time_point start_;
};

int RunCompile(const CompileArgs& a) {
  if (!SetLogLevel(a.log_level))
    throw UsageError("--log-level: '" + a.log_level + "' is not one of: trace, debug, info, warn, error, off");
  Compiler compiler;
  // Plugins first (--plugin, then the pipeline's, then the search path's): option flags may name their options.
  compiler.LoadPlugins(a.plugins);
  std::optional<Error> plugin_error;  // a pipeline plugin that failed: reported by Resolve, after the flags
  {
    OptionLayer level_only(OptionPlace::kCli);
    for (const OptionFlag& f : GivenOptionFlags())
      if (f.name == kOptLevelOption) level_only.Set(compiler.options(), f.name, f.value, f.text);
    CompileRequest probe;
    probe.session = &level_only;
    if (!a.pipeline.empty()) probe.pipeline_file = a.pipeline;
    try {
      compiler.LoadPluginsFor(probe);
    } catch (const Error& e) {
      if (e.code() != ExitCode::kPlugin) throw;
      plugin_error = e;
    }
  }
  OptionLayer session(OptionPlace::kCli);
  for (const OptionFlag& f : GivenOptionFlags()) {
    try {
      session.Set(compiler.options(), f.name, f.value, f.text);
    } catch (const Error&) {
      // An unknown option that is no near miss of a known one may be the failed plugin's: report that instead.
      const OptionRegistry& known = compiler.options();
      if (plugin_error && !known.Find(f.name) &&
          known.UnknownOptionMessage(f.name).find("did you mean") == std::string::npos)
        throw *plugin_error;
      throw;
    }
  }
  CompileRequest req;
  req.session = &session;
  if (!a.pipeline.empty()) req.pipeline_file = a.pipeline;
  req.verify_each = a.verify_each;
  req.strict = a.strict;
  req.dump_dir = a.dump_dir;
  req.dump_after = a.dump_after;
  if (!a.dump_dir.empty() && a.dump_after.empty()) req.dump_after = {"all"};
  if (!a.print_pipeline) {
    if (a.model.empty()) throw UsageError("compile: MODEL is required");
    if (a.output.empty()) throw UsageError("compile: -o OUT is required");
  }
  ResolvedPipeline resolved = compiler.Resolve(req);
  if (a.print_pipeline) {
    std::cout << PrintPipeline(resolved.pipeline, resolved.plan, resolved.options);
    return 0;
  }
  if (SamePath(a.model, a.output) && !a.in_place)
    throw UsageError("-o " + a.output + " is the input model; pass --in-place to overwrite it");
  if (!a.dump_dir.empty()) {
    std::error_code ec;
    fs::create_directories(a.dump_dir, ec);
    if (ec) throw UsageError("--dump-dir " + a.dump_dir + ": " + ec.message());
  }
  Progress progress;
  req.progress = [&](const std::string& stage, uint64_t v) { progress.Update(stage, v); };

  auto t0 = std::chrono::steady_clock::now();
  auto model = LoadModel(a.model);
  auto t1 = std::chrono::steady_clock::now();
  const size_t before = model->graph().CountNodes(true);
  nlohmann::json report = compiler.Run(*model, resolved, req);
  auto t2 = std::chrono::steady_clock::now();
  ExportOptions eo;
  eo.external_data_threshold = a.external_threshold;
  WriteModel(*model, a.output, eo);
  auto t3 = std::chrono::steady_clock::now();
  auto secs = [](auto x, auto y) { return std::chrono::duration<double>(y - x).count(); };
  report["model"] = a.model;
  report["output"] = a.output;
  report["nodes_before"] = before;
  report["nodes_after"] = model->graph().CountNodes(true);
  report["seconds"] = {{"load", secs(t0, t1)}, {"optimize", secs(t1, t2)}, {"write", secs(t2, t3)},
                       {"total", secs(t0, t3)}};
  report["summary_after"] = ModelSummary(*model);
  if (!a.report.empty()) {
    AtomicFile f(a.report);
    f.stream() << report.dump(2) << "\n";
    f.Commit();
  }
  std::cerr << ReportSummaryText(report);
  // The process ends here: skip freeing a large graph node by node (as compilers do), the OS takes it back.
  (void)model.release();
  return 0;
}

}  // namespace

Action AddCompileCommand(CLI::App& app) {
  auto a = std::make_shared<CompileArgs>();
  auto* cmd = app.add_subcommand(
      "compile", "Optimise a model with the pipeline of its level (--oo.level=O0..O3, default O2) and write it.\n"
                 "Any option from `kiln options` is given as --NAME=VALUE, e.g. --oo.constantFolding=false.");
  cmd->add_option("MODEL", a->model, "The ONNX model to compile");
  cmd->add_option("-o,--output", a->output, "Where to write the optimised model (written whole or not at all)");
  cmd->add_option("--pipeline", a->pipeline, "A pipeline YAML file to use instead of the level's shipped one");
  cmd->add_flag("--print-pipeline", a->print_pipeline, "Print the resolved pipeline and exit");
  cmd->add_option("--report", a->report, "Write the compile report as JSON to this file");
  cmd->add_option("--dump-dir", a->dump_dir, "Write an ONNX file after each pass named by --dump-after");
  cmd->add_option("--dump-after", a->dump_after, "A pass name, or 'all' (repeatable; default all)");
  cmd->add_flag("--verify-each", a->verify_each, "Verify the graph after every pass");
  cmd->add_flag("--strict", a->strict, "Stop on the first failing pass instead of rolling it back");
  cmd->add_option("--log-level", a->log_level, "trace, debug, info, warn (default), error or off");
  cmd->add_option("--external-data-threshold", a->external_threshold,
                  "Write initializers of at least BYTES bytes to OUT.data");
  cmd->add_flag("--in-place", a->in_place, "Allow -o to name the input model");
  cmd->add_option("--plugin", a->plugins, "Load a plugin file or every plugin in a directory (repeatable)");
  return [a] { return RunCompile(*a); };
}

}  // namespace kiln::cli
