// kiln run MODEL --inputs-dir DIR --output-dir DIR: runs a model on the reference executor.
// kiln verify REFERENCE CANDIDATE: runs both on the same inputs and compares every output.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>

#include "cli/check_flags.h"
#include "cli/commands.h"
#include "cli/option_flags.h"
#include "compile/compiler.h"
#include "exec/compare.h"
#include "exec/executor.h"
#include "exec/input_feed.h"
#include "exec/value_io.h"
#include "ir/model.h"
#include "onnx/onnx_import.h"
#include "support/display_text.h"
#include "support/error.h"
#include "support/logging.h"

namespace kiln::cli {
namespace {
namespace fs = std::filesystem;

// NAME=VALUE pairs of a repeatable option.
template <typename V>
std::map<std::string, V> ParsePairs(const std::vector<std::string>& items, const std::string& flag) {
  std::map<std::string, V> out;
  for (const auto& item : items) {
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError(flag + " " + item + ": expected NAME=VALUE");
    if constexpr (std::is_same_v<V, int64_t>) {
      try {
        out[item.substr(0, eq)] = std::stoll(item.substr(eq + 1));
      } catch (const std::exception&) {
        throw UsageError(flag + " " + item + ": the value is not an integer");
      }
    } else {
      out[item.substr(0, eq)] = item.substr(eq + 1);
    }
  }
  return out;
}

struct RunArgs {
  std::string model, inputs_dir, output_dir, log_level = "warn";
  std::vector<std::string> inputs, plugins;
  int repeat = 1;
};

int RunModel(const RunArgs& a) {
  SetLogLevelFlag(a.log_level);
  Compiler compiler;
  LoadPluginsAndSearchPath(compiler, a.plugins);
  auto model = LoadModel(a.model);
  InputSpec spec;
  spec.inputs_dir = a.inputs_dir;
  spec.named = ParsePairs<std::string>(a.inputs, "--input");
  auto inputs = ReadInputs(model->graph(), spec);
  if (a.repeat < 1) throw UsageError("--repeat: must be at least 1");
  std::vector<RtValue> outputs;
  std::vector<double> times;
  for (int r = 0; r < a.repeat; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    outputs = Executor(*model, compiler.kernels()).Run(inputs);
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  const double secs = times[times.size() / 2];
  std::error_code ec;
  fs::create_directories(a.output_dir, ec);
  if (ec) throw UsageError("--output-dir " + a.output_dir + ": " + ec.message());
  const auto& decl = model->graph().outputs();
  for (size_t i = 0; i < outputs.size(); ++i) {
    fs::path p = fs::path(a.output_dir) / ("output_" + std::to_string(i) + ".pb");
    WriteValueFile(p.string(), outputs[i], decl[i]->name(), decl[i]->type());
    std::cerr << "kiln: " << EscapeForDisplay(decl[i]->name()) << ": " << Describe(outputs[i]) << " -> " << p.string() << "\n";
  }
  std::cerr << "kiln: ran " << model->graph().CountNodes(true) << " nodes in " << secs << " s";
  if (a.repeat > 1) std::cerr << " (median of " << a.repeat << " runs)";
  std::cerr << "\n";
  return 0;
}

struct VerifyArgs {
  std::string reference, candidate, inputs_dir, log_level = "warn";
  std::vector<std::string> dims, plugins;
  uint64_t seed = 0;
  double rtol = 1e-3, atol = 1e-5;
};

int Verify(const VerifyArgs& a) {
  SetLogLevelFlag(a.log_level);
  Compiler compiler;
  LoadPluginsAndSearchPath(compiler, a.plugins);
  auto ref = LoadModel(a.reference), cand = LoadModel(a.candidate);
  std::vector<RtValue> inputs;
  if (!a.inputs_dir.empty()) {
    InputSpec spec;
    spec.inputs_dir = a.inputs_dir;
    inputs = ReadInputs(ref->graph(), spec);
  } else {
    inputs = RandomInputs(ref->graph(), a.seed, ParsePairs<int64_t>(a.dims, "--dim"));
  }
  // The candidate's inputs by name (an optimiser may not reorder them, but match by name to be sure).
  auto ref_in = Executor::RequiredInputs(ref->graph()), cand_in = Executor::RequiredInputs(cand->graph());
  std::vector<RtValue> cand_inputs;
  for (const Value* v : cand_in) {
    auto it = std::find_if(ref_in.begin(), ref_in.end(), [&](const Value* r) { return r->name() == v->name(); });
    if (it == ref_in.end()) throw ModelError(a.candidate + ": input '" + v->name() + "' is not an input of the reference");
    cand_inputs.push_back(inputs[static_cast<size_t>(it - ref_in.begin())]);
  }
  auto ref_out = Executor(*ref, compiler.kernels()).Run(inputs);
  auto cand_out = Executor(*cand, compiler.kernels()).Run(cand_inputs);
  const auto& ref_decl = ref->graph().outputs();
  const auto& cand_decl = cand->graph().outputs();
  bool all = true;
  for (size_t i = 0; i < ref_decl.size(); ++i) {
    auto it = std::find_if(cand_decl.begin(), cand_decl.end(), [&](const Value* v) { return v->name() == ref_decl[i]->name(); });
    if (it == cand_decl.end()) {
      std::cout << EscapeForDisplay(ref_decl[i]->name()) << ": MISSING from the candidate\n";
      all = false;
      continue;
    }
    Comparison c = CompareValues(ref_out[i], cand_out[static_cast<size_t>(it - cand_decl.begin())], a.rtol, a.atol);
    std::cout << EscapeForDisplay(ref_decl[i]->name()) << ": " << (c.match ? "match" : "MISMATCH") << "  " << Describe(ref_out[i])
              << "  " << c.message << "\n";
    all = all && c.match;
  }
  std::cout << (all ? "all outputs match" : "outputs differ") << " (rtol " << a.rtol << ", atol " << a.atol << ")\n";
  return all ? 0 : static_cast<int>(ExitCode::kInternal);
}

}  // namespace

Action AddRunCommand(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand("run", "Run a model on the reference executor (inputs and outputs as ONNX "
                                        "TensorProto/SequenceProto/OptionalProto .pb files: input_0.pb, output_0.pb, ...)");
  cmd->add_option("MODEL", a->model, "The ONNX model")->required();
  cmd->add_option("--inputs-dir", a->inputs_dir, "A folder of input_<i>.pb files in graph-input order");
  cmd->add_option("--input", a->inputs, "NAME=FILE.pb for one input (repeatable; overrides --inputs-dir)");
  cmd->add_option("--output-dir", a->output_dir, "Where to write output_<i>.pb")->required();
  cmd->add_option("--repeat", a->repeat, "Run N times and report the median time (for benchmarks)");
  cmd->add_option("--plugin", a->plugins, "Load a plugin file or directory (repeatable)");
  cmd->add_option("--log-level", a->log_level, "trace, debug, info, warn (default), error or off");
  return [a] { return RunModel(*a); };
}

Action AddVerifyCommand(CLI::App& app) {
  auto a = std::make_shared<VerifyArgs>();
  auto* cmd = app.add_subcommand("verify", "Run a reference and a candidate model on the same inputs and compare "
                                           "every output; exit 0 when all match, 5 when any does not");
  cmd->add_option("REFERENCE", a->reference, "The original model")->required();
  cmd->add_option("CANDIDATE", a->candidate, "The model to check (e.g. kiln compile's output)")->required();
  AddInputAndToleranceFlags(cmd, *a);
  cmd->add_option("--plugin", a->plugins, "Load a plugin file or directory (repeatable)");
  cmd->add_option("--log-level", a->log_level, "trace, debug, info, warn (default), error or off");
  return [a] { return Verify(*a); };
}

}  // namespace kiln::cli
