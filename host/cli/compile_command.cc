// kiln compile MODEL -o OUT: the flags, then the compile flow the embedding API shares (compile/compile_flow.h):
// options and plugins, resolve, load, optimise with the level's pipeline, write (atomically), report. With
// --target (or oo.target), the report has a "target" section and --trace FILE.json writes the target's task
// stream of the final graph as Chrome trace events (host/target/trace.h), atomically, after the model.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "api/report_summary.h"
#include "cli/commands.h"
#include "cli/option_flags.h"
#include "compile/compile_flow.h"
#include "ir/buffer.h"
#include "ir/model.h"
#include "onnx/onnx_export.h"
#include "onnx/onnx_import.h"
#include "pipeline/pipeline_printer.h"
#include "support/atomic_file.h"
#include "support/display_text.h"
#include "support/error.h"
#include "support/logging.h"

namespace kiln::cli {
namespace {
namespace fs = std::filesystem;

struct CompileArgs {
  std::string model, output, pipeline, report, dump_dir, trace, log_level = "warn";
  std::shared_ptr<AliasFlagValues> aliases;
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

// One line on the target's task stream for the summary on stderr; "" without a target.
std::string TargetSummaryText(const nlohmann::json& report) {
  if (!report.contains("target")) return "";
  const nlohmann::json& t = report["target"];
  std::string line = "  target " + t.value("name", std::string("?")) + ": ";
  if (!t.contains("totals")) return line + "no task stream (" + t.value("error", std::string("?")) + ")\n";
  const nlohmann::json& totals = t["totals"];
  char buf[256];
  std::snprintf(buf, sizeof buf, "%zu tasks, %zu launches, %zu barriers, %llu bytes through HBM between tasks, "
                "%.3f ms estimated", totals.value("tasks", size_t{0}), totals.value("launches", size_t{0}),
                totals.value("barriers", size_t{0}),
                static_cast<unsigned long long>(totals.value("hbm_bytes", uint64_t{0})),
                totals.value("estimated_seconds", 0.0) * 1e3);
  line += buf;
  if (const size_t conversions = totals.value("format_conversions", size_t{0}); conversions > 0) {
    std::snprintf(buf, sizeof buf, "; %zu format conversions left to the device (%.3f ms more)", conversions,
                  totals.value("format_conversion_seconds", 0.0) * 1e3);
    line += buf;
  }
  if (t.contains("trace")) line += "; trace " + t["trace"].get<std::string>();
  return line + "\n";
}

// How much of the output to prefill: the input file's size (the output of a compile is about as large: passes
// rewrite weights, they rarely drop many), or nothing for a small model, where a thread would cost more than it
// saves.
uint64_t PrefillBytes(const std::string& model) {
  constexpr uint64_t kWorthIt = uint64_t{4} << 20;
  std::error_code ec;
  uint64_t bytes = fs::file_size(model, ec);
  return !ec && bytes >= kWorthIt ? bytes : 0;
}

int RunCompile(const CompileArgs& a) {
  SetLogLevelFlag(a.log_level);
  // Plugins first (--plugin, then the pipeline's, then the search path's): option flags may name their options.
  CompileFlow flow(a.plugins, a.pipeline.empty() ? std::nullopt : std::optional<fs::path>(a.pipeline));
  OptionLayer session = flow.SetOptions(OptionPlace::kCli, GivenOptionTexts(*a.aliases));
  CompileRequest req = flow.Request(&session, nullptr);
  req.verify_each = a.verify_each;
  req.strict = a.strict;
  req.dump_dir = a.dump_dir;
  req.dump_after = a.dump_after;
  if (!a.dump_dir.empty() && a.dump_after.empty()) req.dump_after = {"all"};
  if (!a.print_pipeline) {
    if (a.model.empty()) throw UsageError("compile: MODEL is required");
    if (a.output.empty()) throw UsageError("compile: -o OUT is required");
  }
  ResolvedPipeline resolved = flow.Resolve(req);
  if (a.print_pipeline) {
    std::cout << PrintPipeline(resolved.pipeline, resolved.plan, resolved.options);
    return 0;
  }
  if (SamePath(a.model, a.output) && !a.in_place)
    throw UsageError("-o " + a.output + " is the input model; pass --in-place to overwrite it");
  std::optional<AtomicFile> trace_file;  // opened before the compile, so an unwritable path fails first
  nlohmann::json trace;
  if (!a.trace.empty()) {
    if (!resolved.target)
      throw UsageError("--trace " + a.trace + ": no target is active, so there is no task stream to trace; pass "
                       "--target NAME (`kiln targets` lists them)");
    if (SamePath(a.trace, a.output) || SamePath(a.trace, a.model) || (!a.report.empty() && SamePath(a.trace, a.report)))
      throw UsageError("--trace " + a.trace + " names the model, the output or the report");
    trace_file.emplace(a.trace);
    req.trace_events = &trace;
  }
  if (!a.dump_dir.empty()) {
    std::error_code ec;
    fs::create_directories(a.dump_dir, ec);
    if (ec) throw UsageError("--dump-dir " + a.dump_dir + ": " + ec.message());
  }
  Progress progress;
  req.progress = [&](const std::string& stage, uint64_t v) { progress.Update(stage, v); };

  flow.Prepare(resolved);  // passes may start reading their own files while the model loads
  // The output is opened before the model is read, so an unwritable path fails first; and when the model is large
  // its expected size (the input's) is prefilled while the model loads and the passes run (AtomicFile::Prefill).
  AtomicFile out(a.output);
  ExportOptions eo;
  eo.external_data_threshold = a.external_threshold;
  if (!eo.external_data_threshold) out.Prefill(PrefillBytes(a.model));
  LoadTimes times;
  times.started = std::chrono::steady_clock::now();
  auto model = LoadModel(a.model);
  times.loaded = std::chrono::steady_clock::now();
  nlohmann::json report = flow.Compile(*model, a.model, resolved, req, times,
                                       [&](Model& m) { WriteModel(m, out, eo); });  // written whole or not
  report["output"] = a.output;
  if (trace_file) {
    trace_file->stream() << EscapeJsonForDisplay(trace).dump(1) << "\n";
    trace_file->Commit();
    report["target"]["trace"] = a.trace;
  }
  if (!a.report.empty()) {
    AtomicFile f(a.report);
    f.stream() << EscapeJsonForDisplay(report).dump(2) << "\n";
    f.Commit();
  }
  std::cerr << EscapeForDisplay(ReportSummaryText(report) + TargetSummaryText(report), true);
  // The process ends here: skip freeing a large graph node by node (as compilers do), the OS takes it back; its
  // computed constants, written already, are not made whole as the plugins unload.
  Buffer::AbandonComputed();
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
  cmd->add_flag("--verify-each", a->verify_each, "Verify the graph after every pass, not counting the input's own problems against one (and that node passes change only the op types they declare)");
  cmd->add_flag("--strict", a->strict, "Stop on the first failing pass instead of rolling it back");
  cmd->add_option("--log-level", a->log_level, "trace, debug, info, warn (default), error or off");
  cmd->add_option("--external-data-threshold", a->external_threshold,
                  "Write initializers of at least BYTES bytes to OUT.data");
  cmd->add_flag("--in-place", a->in_place, "Allow -o to name the input model");
  cmd->add_option("--plugin", a->plugins, "Load a plugin file or every plugin in a directory (repeatable)");
  a->aliases = AddAliasFlags(cmd);  // --target NAME, --fusion-pack FILE, --fusion-report FILE (core_options.h)
  cmd->add_option("--trace", a->trace,
                  "Write the active target's task stream of the final graph to this file, as Chrome trace events "
                  "(needs --target)")
      ->type_name("FILE.json");
  return [a] { return RunCompile(*a); };
}

}  // namespace kiln::cli
