// TypedCallInstance: see call_instance.h.
#include "shape/call_instance.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/canonical_form.h"
#include "ir/graph_copy.h"
#include "ir/model.h"
#include "ir/outline.h"
#include "shape/shape_inference.h"
#include "support/error.h"

namespace kiln {
namespace {

struct Instance {
  std::string key;
  std::unique_ptr<Model> model;
};
using Instances = std::unordered_map<const Node*, Instance>;

// The body versions of f and of every function its body calls, to any depth (each function once).
void AppendBodyVersions(const Function& f, std::string& key, std::vector<const Function*>& seen) {
  for (const Function* s : seen)
    if (s == &f) return;
  seen.push_back(&f);
  key += std::to_string(reinterpret_cast<uintptr_t>(&f)) + "@" + std::to_string(f.body().structure_version()) + ";";
  for (const auto& n : f.body().nodes())
    if (const Function* inner = f.model()->CalledFunction(*n)) AppendBodyVersions(*inner, key, seen);
}

// What value_is_constant calls a constant (an initializer that is no graph input, or a Constant node's output):
// those become constants of the instance, every other input an input of it, so that a plugin can pair the
// instance's inputs with the call's non-constant inputs in order.
const Node* ConstantProducer(const Value* v) {
  const Node* p = v->producer();
  return p != nullptr && p->op_type() == "Constant" && (p->domain().empty() || p->domain() == "ai.onnx") &&
                 p->num_inputs() == 0
             ? p
             : nullptr;
}
bool IsInitializerConstant(const Value* v) { return v->initializer() != nullptr && !v->is_graph_input(); }

std::string KeyOf(const Function& f, const Node& call) {
  std::string key = std::to_string(f.model()->function_changes()) + "|";
  std::vector<const Function*> seen;
  AppendBodyVersions(f, key, seen);
  for (const Value* v : call.inputs()) {
    key += "|";
    if (v == nullptr) continue;
    key += v->type().ToString();
    if (IsInitializerConstant(v)) key += "=" + std::to_string(reinterpret_cast<uintptr_t>(v->initializer().get()));
    if (const Node* c = ConstantProducer(v)) key += "=c" + std::to_string(reinterpret_cast<uintptr_t>(c));
  }
  key += "|";
  for (const Value* v : call.outputs()) key += (v ? v->type().ToString() : std::string("_")) + ",";
  key += "|";
  for (const Attribute& a : call.attributes()) AppendCanonicalAttribute(key, a);
  return key;
}

std::unique_ptr<Model> Build(const Function& f, const Node& call) {
  const Model& m = *f.model();
  auto scratch = std::make_unique<Model>();
  scratch->ir_version = m.ir_version;
  scratch->opset_imports = m.opset_imports;
  for (const OpsetImport& o : f.opset_imports()) scratch->EnsureOpset(o.domain, o.version);
  for (const auto& other : m.functions())
    for (const OpsetImport& o : other->opset_imports()) scratch->EnsureOpset(o.domain, o.version);
  Graph& g = scratch->graph();
  g.set_name(f.name());
  std::vector<Value*> inputs;
  for (const Value* v : call.inputs()) {
    if (v == nullptr) {
      inputs.push_back(nullptr);
    } else if (IsInitializerConstant(v)) {
      Value* c = g.AddValue(g.FreshName(v->name()));
      c->SetType(v->type());
      g.SetInitializer(c, v->initializer());
      inputs.push_back(c);
    } else if (const Node* producer = ConstantProducer(v)) {
      ValueMap none;
      Node* copy = CopyNodes({const_cast<Node*>(producer)}, g, none).front();
      inputs.push_back(copy->output(v->producer_output()));
    } else {
      inputs.push_back(g.AddInput(g.FreshName(v->name()), v->type()));
    }
  }
  std::vector<Value*> outputs = ExpandCall(f, call, g, inputs);
  for (size_t j = 0; j < outputs.size(); ++j) {
    Value* out = outputs[j];
    const Value* given = j < call.num_outputs() ? call.output(j) : nullptr;
    if (given != nullptr && out->producer() != nullptr && !out->is_graph_output()) out->SetType(given->type());
    g.AppendOutput(out);
  }
  InferShapes(*scratch);
  return scratch;
}

}  // namespace

const Graph& TypedCallInstance(const Node& call) {
  Model& m = *call.graph()->model();
  const Function* f = m.CalledFunction(call);
  if (f == nullptr) throw InternalError("node '" + call.name() + "' (" + call.op_type() + ") calls no function");
  std::shared_ptr<void>& data = m.call_instance_data();
  if (!data) data = std::make_shared<Instances>();
  Instance& slot = (*static_cast<Instances*>(data.get()))[&call];
  std::string key = KeyOf(*f, call);
  if (!slot.model || slot.key != key) {
    slot.model = Build(*f, call);
    slot.key = std::move(key);
  }
  return slot.model->graph();
}

}  // namespace kiln
