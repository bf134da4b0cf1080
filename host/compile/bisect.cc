// kiln bisect; see bisect.h.
#include "compile/bisect.h"

#include <algorithm>
#include <unordered_map>

#include "compile/resource_limits.h"
#include "exec/executor.h"
#include "exec/input_feed.h"
#include "ir/model.h"
#include "onnx/onnx_export.h"
#include "onnx/onnx_import.h"
#include "shape/node_checks.h"
#include "support/error.h"

namespace kiln {
namespace {
namespace fs = std::filesystem;

// What the input model computes on the bisect's inputs.
struct Reference {
  std::vector<std::string> input_names, output_names;
  std::vector<RtValue> inputs, outputs;
};

// Thrown out of the driver's hooks to end a run at a divergence. Not a std::exception, so that no handler on the
// way (a pass call's roll-back) takes it for a failing pass.
struct Diverged {
  std::string stage;
  std::vector<std::string> passes;
  std::string pass, node, why;
};

std::string NodeLabel(const Node& n) { return "'" + n.name() + "' (" + n.op_type() + ")"; }

// `m`'s required inputs, taken by name from the reference's.
std::vector<RtValue> InputsFor(const Model& m, const Reference& ref) {
  std::vector<RtValue> out;
  for (const Value* v : Executor::RequiredInputs(m.graph())) {
    auto it = std::find(ref.input_names.begin(), ref.input_names.end(), v->name());
    if (it == ref.input_names.end())
      throw ModelError("graph input '" + v->name() + "' is not an input of the input model");
    out.push_back(ref.inputs[static_cast<size_t>(it - ref.input_names.begin())]);
  }
  return out;
}

// "" when `m` computes what the reference does; else the first graph output that differs and how, or why `m`
// cannot run.
std::string Divergence(const Model& m, const KernelRegistry& kernels, const Reference& ref, double rtol, double atol) {
  std::vector<RtValue> got;
  try {
    got = Executor(m, kernels).Run(InputsFor(m, ref));
  } catch (const Error& e) {
    return std::string("the model no longer runs: ") + e.what();
  }
  const auto& decl = m.graph().outputs();
  for (size_t i = 0; i < ref.output_names.size(); ++i) {
    auto it = std::find_if(decl.begin(), decl.end(), [&](const Value* v) { return v->name() == ref.output_names[i]; });
    if (it == decl.end()) return "graph output '" + ref.output_names[i] + "' is gone";
    Comparison c = CompareValues(ref.outputs[i], got[static_cast<size_t>(it - decl.begin())], rtol, atol);
    if (!c.match) return "graph output '" + ref.output_names[i] + "' differs: " + c.message;
  }
  return "";
}

bool RunsAnyPass(const PipelinePlan& plan) {
  for (const PlannedStage& stage : plan.stages)
    for (const PlannedStep& step : StageSteps(stage))
      if (step.Runs()) return true;
  return false;
}

// The model as kiln compile checks it before any pass.
std::unique_ptr<Model> LoadChecked(const std::string& path, const ResolvedPipeline& resolved) {
  auto model = LoadModel(path);
  CheckModelLimits(*model, ResourceLimits::From(resolved.options), path);
  if (RunsAnyPass(resolved.plan)) CheckModelForInference(*model);
  return model;
}

// Runs the models before and after the diverging change side by side and names, in the after-model's
// topological order, the first node whose output differs from the before-model's value of the same name.
void FindFirstNode(const KernelRegistry& kernels, const Reference& ref, const BisectRequest& req, BisectFinding& f) {
  auto before = LoadModel(f.before.string()), after = LoadModel(f.after.string());
  std::unordered_map<std::string, RtValue> values;
  Executor run_before(*before, kernels);
  run_before.set_observer([&](const Node&, const Value& v, const RtValue& r) { values.emplace(v.name(), r); });
  Executor run_after(*after, kernels);
  run_after.set_observer([&](const Node& n, const Value& v, const RtValue& r) {
    if (f.first_node) return;
    auto it = values.find(v.name());
    if (it == values.end()) return;
    Comparison c = CompareValues(it->second, r, req.rtol, req.atol);
    if (c.match) return;
    f.first_node = NodeLabel(n);
    f.first_value = v.name();
    f.first_value_detail = c.message;
  });
  try {
    run_before.Run(InputsFor(*before, ref));
    run_after.Run(InputsFor(*after, ref));
  } catch (const Error&) {
    // A model that does not run names no node; the finding's `why` already says what failed.
  }
}

}  // namespace

BisectResult Bisect(Compiler& compiler, const std::string& model_path, const ResolvedPipeline& resolved,
                    const CompileRequest& request, const BisectRequest& req) {
  const KernelRegistry& kernels = compiler.kernels();
  auto model = LoadChecked(model_path, resolved);
  Reference ref;
  ref.inputs = req.inputs_dir.empty() ? RandomInputs(model->graph(), req.seed, req.dims)
                                      : ReadInputs(model->graph(), InputSpec{req.inputs_dir, {}, {}});
  for (const Value* v : Executor::RequiredInputs(model->graph())) ref.input_names.push_back(v->name());
  for (const Value* v : model->graph().outputs()) ref.output_names.push_back(v->name());
  ref.outputs = Executor(*model, kernels).Run(ref.inputs);

  std::error_code ec;
  fs::create_directories(req.dump_dir, ec);
  if (ec) throw UsageError("--dump-dir " + req.dump_dir.string() + ": " + ec.message());
  BisectResult result;
  BisectFinding f;
  f.before = req.dump_dir / "before.onnx";
  f.after = req.dump_dir / "after.onnx";

  // First run: the outputs after every step.
  CompileRequest run = request;
  run.after_step = [&](const std::string& stage, const std::vector<std::string>& passes) {
    ++result.steps;
    std::string why = Divergence(*model, kernels, ref, req.rtol, req.atol);
    if (!why.empty()) throw Diverged{stage, passes, passes.size() == 1 ? passes[0] : "", "", why};
  };
  try {
    compiler.Run(*model, resolved, run);
    return result;  // no step diverged
  } catch (const Diverged& d) {
    f.stage = d.stage;
    f.step_passes = d.passes;
    f.pass = d.pass;
    f.why = d.why;
    WriteModel(*model, f.after.string());
  }
  const size_t step = result.steps - 1;  // the diverging step's index

  // Second run, from the start: inside that step, the outputs after every change a pass call kept. The model
  // before the step, and then after each change that still matches, is the "before" model.
  auto again = LoadChecked(model_path, resolved);
  size_t done = 0;
  if (step == 0) WriteModel(*again, f.before.string());
  CompileRequest replay = request;
  replay.after_step = [&](const std::string&, const std::vector<std::string>&) {
    if (++done == step) WriteModel(*again, f.before.string());
    if (done > step) throw Diverged{};  // the step ended without a change diverging: the first run's finding stands
  };
  replay.after_change = [&](const std::string& pass, const Node* node) {
    if (done != step) return;
    ++result.changes;
    std::string why = Divergence(*again, kernels, ref, req.rtol, req.atol);
    if (why.empty()) {
      WriteModel(*again, f.before.string());
      return;
    }
    throw Diverged{f.stage, f.step_passes, pass, node ? NodeLabel(*node) : "", why};
  };
  try {
    compiler.Run(*again, resolved, replay);
  } catch (const Diverged& d) {
    if (!d.pass.empty()) {
      f.pass = d.pass;
      f.changed_node = d.node;
      f.why = d.why;
      WriteModel(*again, f.after.string());
    }
  }
  FindFirstNode(kernels, ref, req, f);
  result.finding = std::move(f);
  return result;
}

}  // namespace kiln
