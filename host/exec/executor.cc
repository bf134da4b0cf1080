#include "exec/executor.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "exec/axis_ops.h"
#include "ir/model.h"
#include "ir/outline.h"
#include "ir/topo_order.h"
#include "support/error.h"

namespace kiln {

struct Executor::Env {
  std::unordered_map<const Value*, RtValue> values;
  const Env* parent = nullptr;
  const Function* function = nullptr;  // set in a function body's run (its imports give the opsets)
  int call_depth = 0;

  const RtValue* Find(const Value* v) const {
    for (const Env* e = this; e != nullptr; e = e->parent) {
      auto it = e->values.find(v);
      if (it != e->values.end()) return &it->second;
    }
    return nullptr;
  }
};

namespace {

std::string Label(const Node& n) { return "node '" + n.name() + "' (" + n.op_type() + ")"; }

// Values of `g` that node `n` reads, directly or from inside its subgraphs; each once.
void ReadsOf(const Graph& g, const Node& n, std::unordered_set<const Value*>& out) {
  ForEachRead(n, [&](Node*, size_t, const Value* v) {
    if (v->graph() == &g) out.insert(v);
  });
}

RtValue ScalarTensor(DataType t, const void* value) {
  OutputTensor o = AllocateTensor(t, {});
  std::memcpy(o.data, value, ElementSize(t));
  return RtValue::Of(o.tensor);
}

bool TruthOf(const RtValue& v, const std::string& what) {
  if (!v.is_tensor() || v.tensor->type() != DataType::kBool || v.tensor->num_elements() != 1)
    throw ModelError(what + " must be a one-element bool tensor");
  return v.tensor->values<uint8_t>()[0] != 0;
}

// ONNX forbids recursion; a model that recurses anyway stops here instead of exhausting the stack.
constexpr int kMaxCallDepth = 64;

}  // namespace

Executor::Executor(const Model& model, const KernelRegistry& kernels) : model_(model), kernels_(kernels) {}

Executor::~Executor() {
  instances_.clear();  // before the scratch model they belong to
}

int64_t Executor::OpsetFor(const Node& n, const Env& env) const {
  for (const Env* e = &env; e != nullptr; e = e->parent) {
    if (e->function == nullptr) continue;
    auto norm = [](std::string_view d) { return d == "ai.onnx" ? std::string_view() : d; };
    for (const OpsetImport& o : e->function->opset_imports())
      if (norm(o.domain) == norm(n.domain())) return o.version;
    break;
  }
  return model_.OpsetVersion(n.domain()).value_or(1);
}

void Executor::RunCall(const Node& n, const Function& f, const std::vector<RtValue>& inputs, Env& env,
                       std::vector<RtValue>& outputs) const {
  int depth = 0;
  for (const Env* e = &env; e != nullptr; e = e->parent) depth = std::max(depth, e->call_depth);
  if (depth >= kMaxCallDepth)
    throw ModelError("calls of model-local functions nest deeper than " + std::to_string(kMaxCallDepth) +
                     " (is '" + f.name() + "' recursive?)");
  auto it = instances_.find(&n);
  if (it == instances_.end()) {
    if (!scratch_) scratch_ = std::make_unique<Model>();
    it = instances_.emplace(&n, InstantiateBody(f, n, *scratch_)).first;
  }
  const Graph& body = *it->second;
  if (inputs.size() > body.inputs().size() || outputs.size() > body.outputs().size())
    throw ModelError("the call has more inputs or outputs than function '" + f.name() + "' has");
  Env sub;  // a body sees nothing of its caller's scope
  sub.function = &f;
  sub.call_depth = depth + 1;
  for (size_t i = 0; i < body.inputs().size(); ++i)
    sub.values[body.inputs()[i]] = i < inputs.size() ? inputs[i] : RtValue::None();
  auto out = RunGraph(body, sub);
  for (size_t i = 0; i < outputs.size(); ++i) outputs[i] = std::move(out[i]);
}

std::vector<const Value*> Executor::RequiredInputs(const Graph& g) {
  std::vector<const Value*> out;
  for (const Value* v : g.inputs())
    if (!v->is_initializer()) out.push_back(v);
  return out;
}

std::vector<RtValue> Executor::Run(const std::vector<RtValue>& inputs) const {
  const Graph& g = model_.graph();
  Env env;
  auto required = RequiredInputs(g);
  if (inputs.size() != required.size())
    throw ModelError("the model takes " + std::to_string(required.size()) + " inputs, " +
                     std::to_string(inputs.size()) + " were given");
  for (size_t i = 0; i < required.size(); ++i) env.values[required[i]] = inputs[i];
  return RunGraph(g, env);
}

std::vector<RtValue> Executor::RunGraph(const Graph& g, Env& env) const {
  for (const Value* v : g.initializers())
    if (!env.values.count(v)) env.values[v] = RtValue::Of(v->initializer());
  std::vector<Node*> order = TopologicalOrderOrThrow(g, "graph '" + g.name() + "'");
  std::unordered_map<const Value*, int> remaining;
  std::vector<std::unordered_set<const Value*>> reads(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    ReadsOf(g, *order[i], reads[i]);
    for (const Value* v : reads[i]) ++remaining[v];
  }
  std::unordered_set<const Value*> outputs(g.outputs().begin(), g.outputs().end());
  for (size_t i = 0; i < order.size(); ++i) {
    RunNode(*order[i], env);
    if (observer_ && &g == &model_.graph()) {
      for (size_t k = 0; k < order[i]->num_outputs(); ++k)
        if (const Value* v = order[i]->output(k); v != nullptr)
          if (const RtValue* r = env.Find(v)) observer_(*order[i], *v, *r);
    }
    for (const Value* v : reads[i])
      if (--remaining[v] == 0 && !outputs.count(v) && !v->is_initializer()) env.values.erase(v);
  }
  std::vector<RtValue> result;
  for (const Value* v : g.outputs()) {
    const RtValue* r = env.Find(v);
    if (r == nullptr) throw ModelError("graph '" + g.name() + "': output '" + v->name() + "' was not computed");
    result.push_back(*r);
  }
  return result;
}

void Executor::RunNode(const Node& n, Env& env) const {
  std::vector<RtValue> inputs(n.num_inputs());
  for (size_t i = 0; i < n.num_inputs(); ++i) {
    const Value* v = n.input(i);
    if (v == nullptr) continue;
    const RtValue* r = env.Find(v);
    if (r == nullptr) throw ModelError(Label(n) + ": input '" + v->name() + "' has no value");
    inputs[i] = *r;
  }
  std::vector<RtValue> outputs(n.num_outputs());
  try {
    if (const Function* f = n.domain().empty() ? nullptr : model_.CalledFunction(n)) {
      RunCall(n, *f, inputs, env, outputs);
    } else if (n.domain().empty() && n.op_type() == "If") {
      RunIf(n, env, outputs);
    } else if (n.domain().empty() && n.op_type() == "Loop") {
      RunLoop(n, env, outputs);
    } else if (n.domain().empty() && n.op_type() == "Scan") {
      RunScan(n, env, outputs);
    } else if (n.domain().empty() && n.op_type() == "SequenceMap") {
      RunSequenceMap(n, env, outputs);
    } else {
      KernelCall call(n, OpsetFor(n, env), inputs, n.num_outputs());
      std::string why;
      if (!kernels_.Compute(call, &why)) throw ModelError(Label(n) + ": cannot run it: " + why);
      outputs = std::move(call.outputs());
    }
  } catch (const Error& e) {
    std::string msg = e.what();
    if (msg.find(n.name().empty() ? n.op_type() : n.name()) == std::string::npos) msg = Label(n) + ": " + msg;
    throw Error(e.code(), msg);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    throw InternalError(Label(n) + ": " + e.what());
  }
  for (size_t i = 0; i < n.num_outputs(); ++i)
    if (const Value* v = n.output(i)) env.values[v] = std::move(outputs[i]);
}

void Executor::RunIf(const Node& n, Env& env, std::vector<RtValue>& outputs) const {
  const RtValue* c = n.input(0) ? env.Find(n.input(0)) : nullptr;
  if (c == nullptr) throw ModelError("the condition is missing");
  const Attribute* branch = n.FindAttribute(TruthOf(*c, "the condition") ? "then_branch" : "else_branch");
  if (branch == nullptr || branch->graph() == nullptr) throw ModelError("a branch is missing");
  Env sub;
  sub.parent = &env;
  auto out = RunGraph(*branch->graph(), sub);
  for (size_t i = 0; i < outputs.size() && i < out.size(); ++i) outputs[i] = std::move(out[i]);
}

void Executor::RunLoop(const Node& n, Env& env, std::vector<RtValue>& outputs) const {
  const Attribute* a = n.FindAttribute("body");
  if (a == nullptr || a->graph() == nullptr) throw ModelError("the body is missing");
  const Graph& body = *a->graph();
  int64_t trips = std::numeric_limits<int64_t>::max();
  if (n.input(0)) trips = env.Find(n.input(0))->tensor->values<int64_t>()[0];
  bool cond = true;
  if (n.input(1)) cond = TruthOf(*env.Find(n.input(1)), "the loop condition");
  const size_t carried = n.num_inputs() >= 2 ? n.num_inputs() - 2 : 0;
  if (body.inputs().size() != carried + 2) throw ModelError("the body takes " + std::to_string(body.inputs().size()) +
                                                            " inputs; the node gives " + std::to_string(carried + 2));
  std::vector<RtValue> state;
  for (size_t i = 0; i < carried; ++i) state.push_back(n.input(2 + i) ? *env.Find(n.input(2 + i)) : RtValue::None());
  const size_t scans = body.outputs().size() - 1 - carried;
  std::vector<std::vector<std::shared_ptr<const Tensor>>> scan_items(scans);
  for (int64_t it = 0; it < trips && cond; ++it) {
    Env sub;
    sub.parent = &env;
    sub.values[body.inputs()[0]] = ScalarTensor(DataType::kInt64, &it);
    uint8_t c = 1;
    sub.values[body.inputs()[1]] = ScalarTensor(DataType::kBool, &c);
    for (size_t i = 0; i < carried; ++i) sub.values[body.inputs()[2 + i]] = state[i];
    auto out = RunGraph(body, sub);
    cond = TruthOf(out[0], "the body's condition output");
    for (size_t i = 0; i < carried; ++i) state[i] = std::move(out[1 + i]);
    for (size_t k = 0; k < scans; ++k) {
      const RtValue& s = out[1 + carried + k];
      if (!s.is_tensor()) throw ModelError("a scan output is not a tensor");
      scan_items[k].push_back(s.tensor);
    }
  }
  for (size_t i = 0; i < carried && i < outputs.size(); ++i) outputs[i] = std::move(state[i]);
  for (size_t k = 0; k < scans && carried + k < outputs.size(); ++k) {
    const Type& t = body.outputs()[1 + carried + k]->type();
    std::vector<int64_t> elem_dims;
    if (t.shape)
      for (const Dim& d : t.shape->dims) elem_dims.push_back(d.value.value_or(0));
    outputs[carried + k] = RtValue::Of(StackAlongAxis(scan_items[k], 0, t.elem, elem_dims));
  }
}

void Executor::RunScan(const Node& n, Env& env, std::vector<RtValue>& outputs) const {
  const Attribute* a = n.FindAttribute("body");
  if (a == nullptr || a->graph() == nullptr) throw ModelError("the body is missing");
  const Graph& body = *a->graph();
  const int64_t opset = model_.OpsetVersion("").value_or(1);
  const bool batched = opset < 9;  // Scan-8: axis 0 is a batch, sequence_lens is input 0
  const size_t first = batched ? 1 : 0;
  const size_t m = static_cast<size_t>(n.GetInt("num_scan_inputs", 0));
  const size_t total = n.num_inputs() - first, states = total - m;
  const size_t k_out = body.outputs().size() - states;
  auto in_axes = n.GetInts("scan_input_axes"), in_dirs = n.GetInts(batched ? "directions" : "scan_input_directions");
  auto out_axes = n.GetInts("scan_output_axes"), out_dirs = n.GetInts("scan_output_directions");
  std::vector<RtValue> ins;
  for (size_t i = first; i < n.num_inputs(); ++i) ins.push_back(*env.Find(n.input(i)));
  const int64_t batches = batched ? ins[0].tensor->dims()[0] : 1;
  std::vector<std::vector<std::shared_ptr<const Tensor>>> per_batch(total - m + k_out);
  for (int64_t b = 0; b < batches; ++b) {
    std::vector<RtValue> state(ins.begin(), ins.begin() + static_cast<ptrdiff_t>(states));
    std::vector<std::shared_ptr<const Tensor>> scan_in(m);
    for (size_t j = 0; j < m; ++j) scan_in[j] = ins[states + j].tensor;
    if (batched) {
      for (auto& s : state) s = RtValue::Of(SliceAlongAxis(*s.tensor, 0, b));
      for (auto& s : scan_in) s = std::make_shared<const Tensor>(SliceAlongAxis(*s, 0, b));
    }
    std::vector<size_t> axes(m);
    for (size_t j = 0; j < m; ++j) {
      int64_t ax = j < in_axes.size() && !batched ? in_axes[j] : 0;
      int64_t rank = static_cast<int64_t>(scan_in[j]->dims().size());
      axes[j] = static_cast<size_t>(ax < 0 ? ax + rank : ax);
    }
    const int64_t len = m ? scan_in[0]->dims()[axes[0]] : 0;
    std::vector<std::vector<std::shared_ptr<const Tensor>>> items(k_out);
    for (int64_t t = 0; t < len; ++t) {
      Env sub;
      sub.parent = &env;
      for (size_t i = 0; i < states; ++i) sub.values[body.inputs()[i]] = state[i];
      for (size_t j = 0; j < m; ++j) {
        int64_t pos = j < in_dirs.size() && in_dirs[j] == 1 ? len - 1 - t : t;
        sub.values[body.inputs()[states + j]] = RtValue::Of(SliceAlongAxis(*scan_in[j], axes[j], pos));
      }
      auto out = RunGraph(body, sub);
      for (size_t i = 0; i < states; ++i) state[i] = std::move(out[i]);
      for (size_t k = 0; k < k_out; ++k) items[k].push_back(out[states + k].tensor);
    }
    for (size_t i = 0; i < states; ++i) per_batch[i].push_back(state[i].tensor);
    for (size_t k = 0; k < k_out; ++k) {
      if (k < out_dirs.size() && out_dirs[k] == 1) std::reverse(items[k].begin(), items[k].end());
      const Type& ty = body.outputs()[states + k]->type();
      int64_t ax = k < out_axes.size() ? out_axes[k] : 0;
      size_t rank = items[k].empty() ? 0 : items[k][0]->dims().size();
      size_t axis = static_cast<size_t>(ax < 0 ? ax + static_cast<int64_t>(rank) + 1 : ax);
      per_batch[states + k].push_back(std::make_shared<const Tensor>(StackAlongAxis(items[k], axis, ty.elem, {})));
    }
  }
  for (size_t i = 0; i < per_batch.size() && i < outputs.size(); ++i) {
    if (!batched) {
      outputs[i] = RtValue::Of(per_batch[i][0]);
    } else {
      outputs[i] = RtValue::Of(StackAlongAxis(per_batch[i], 0, per_batch[i][0]->type(), {}));
    }
  }
}

void Executor::RunSequenceMap(const Node& n, Env& env, std::vector<RtValue>& outputs) const {
  const Attribute* a = n.FindAttribute("body");
  if (a == nullptr || a->graph() == nullptr) throw ModelError("the body is missing");
  const Graph& body = *a->graph();
  std::vector<RtValue> ins;
  for (size_t i = 0; i < n.num_inputs(); ++i) ins.push_back(*env.Find(n.input(i)));
  if (ins.empty() || ins[0].kind != RtValue::Kind::kSequence) throw ModelError("input 0 must be a sequence");
  const size_t len = ins[0].sequence.size();
  std::vector<std::vector<std::shared_ptr<const Tensor>>> items(body.outputs().size());
  for (size_t t = 0; t < len; ++t) {
    Env sub;
    sub.parent = &env;
    for (size_t i = 0; i < ins.size(); ++i)
      sub.values[body.inputs()[i]] =
          ins[i].kind == RtValue::Kind::kSequence ? RtValue::Of(ins[i].sequence.at(t)) : ins[i];
    auto out = RunGraph(body, sub);
    for (size_t k = 0; k < out.size(); ++k) items[k].push_back(out[k].tensor);
  }
  for (size_t k = 0; k < outputs.size() && k < items.size(); ++k)
    outputs[k] = RtValue::Sequence(body.outputs()[k]->type().elem, std::move(items[k]));
}

}  // namespace kiln
