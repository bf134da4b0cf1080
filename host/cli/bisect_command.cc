// kiln bisect MODEL [compile options]: runs the compile pipeline step by step, checks the outputs on the reference
// executor after each, and names the first pass and node whose outputs diverge (host/compile/bisect.h). Exit 0
// when nothing diverges, 5 when a pass changed what the model computes.
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "cli/check_flags.h"
#include "cli/commands.h"
#include "cli/option_flags.h"
#include "compile/bisect.h"
#include "compile/compile_flow.h"
#include "support/display_text.h"
#include "support/error.h"
#include "support/logging.h"

namespace kiln::cli {
namespace {
namespace fs = std::filesystem;

struct BisectArgs {
  std::string model, pipeline, inputs_dir, dump_dir, log_level = "warn";
  std::shared_ptr<AliasFlagValues> aliases;
  std::vector<std::string> plugins, dims;
  bool strict = false;
  uint64_t seed = 0;
  double rtol = 1e-3, atol = 1e-5;
};

std::map<std::string, int64_t> ParseDims(const std::vector<std::string>& items) {
  std::map<std::string, int64_t> out;
  for (const std::string& item : items) {
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError("--dim " + item + ": expected NAME=VALUE");
    try {
      out[item.substr(0, eq)] = std::stoll(item.substr(eq + 1));
    } catch (const std::exception&) {
      throw UsageError("--dim " + item + ": the value is not an integer");
    }
  }
  return out;
}

// --dump-dir, or MODEL.bisect beside the model, or (when that folder cannot be made) one in the temp directory.
fs::path DumpDir(const BisectArgs& a) {
  if (!a.dump_dir.empty()) return a.dump_dir;
  fs::path beside = fs::path(a.model).replace_extension(".bisect");
  std::error_code ec;
  fs::create_directories(beside, ec);
  if (!ec && ::access(beside.c_str(), W_OK) == 0) return beside;
  return fs::temp_directory_path() / ("kiln-bisect-" + std::to_string(::getpid()));
}

std::string Joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

int RunBisect(const BisectArgs& a) {
  SetLogLevelFlag(a.log_level);
  CompileFlow flow(a.plugins, a.pipeline.empty() ? std::nullopt : std::optional<fs::path>(a.pipeline));
  OptionLayer session = flow.SetOptions(OptionPlace::kCli, GivenOptionTexts(*a.aliases));
  CompileRequest request = flow.Request(&session, nullptr);
  request.strict = a.strict;
  ResolvedPipeline resolved = flow.Resolve(request);
  BisectRequest req;
  req.inputs_dir = a.inputs_dir;
  req.seed = a.seed;
  req.dims = ParseDims(a.dims);
  req.rtol = a.rtol;
  req.atol = a.atol;
  req.dump_dir = DumpDir(a);
  BisectResult r = Bisect(flow.compiler(), a.model, resolved, request, req);

  std::string out = "kiln bisect: " + a.model + ": " + std::to_string(r.steps) + " pipeline steps checked (rtol " +
                    std::to_string(a.rtol) + ", atol " + std::to_string(a.atol) + ")\n";
  if (!r.finding) {
    std::cout << EscapeForDisplay(out + "no divergence: after every step the model computes what the input model "
                                        "does\n", true);
    return 0;
  }
  const BisectFinding& f = *r.finding;
  out += "first diverging pass: " + (f.pass.empty() ? "one of " + Joined(f.step_passes) : f.pass) + " (stage " +
         f.stage + (f.step_passes.size() > 1 ? ", in the walk of " + Joined(f.step_passes) : "") + ")\n";
  if (!f.changed_node.empty())
    out += "  its change on node " + f.changed_node + " (" + std::to_string(r.changes) + " changes checked in the step)\n";
  if (f.first_node)
    out += "first diverging node: " + *f.first_node + ", output '" + f.first_value + "': " + f.first_value_detail + "\n";
  out += "  " + f.why + "\n";
  out += "model before: " + f.before.string() + "\nmodel after:  " + f.after.string() + "\n";
  std::cout << EscapeForDisplay(out, true);
  return static_cast<int>(ExitCode::kInternal);
}

}  // namespace

Action AddBisectCommand(CLI::App& app) {
  auto a = std::make_shared<BisectArgs>();
  auto* cmd = app.add_subcommand(
      "bisect", "Run the compile pipeline step by step on the reference executor and name the first pass and node "
                "whose outputs diverge from the input model's; exit 0 when none does, 5 when one does.\n"
                "Takes kiln compile's options: --oo.level=O2, -O1, --pipeline FILE, --plugin PATH, --NAME=VALUE.");
  cmd->add_option("MODEL", a->model, "The ONNX model")->required();
  cmd->add_option("--pipeline", a->pipeline, "A pipeline YAML file to use instead of the level's shipped one");
  cmd->add_option("--plugin", a->plugins, "Load a plugin file or every plugin in a directory (repeatable)");
  AddInputAndToleranceFlags(cmd, *a);
  cmd->add_option("--dump-dir", a->dump_dir,
                  "Where to write before.onnx and after.onnx (default: MODEL.bisect beside the model, else a "
                  "temporary folder; printed)");
  cmd->add_flag("--strict", a->strict, "Stop on the first failing pass instead of rolling it back");
  cmd->add_option("--log-level", a->log_level, "trace, debug, info, warn (default), error or off");
  a->aliases = AddAliasFlags(cmd);
  return [a] { return RunBisect(*a); };
}

}  // namespace kiln::cli
