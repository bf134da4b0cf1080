// One node's inference through ONNX's inference functions: see node_inference.h.
#include "shape/node_inference.h"

#include <exception>
#include <map>
#include <memory>
#include <unordered_map>

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include "ir/graph.h"
#include "ir/model.h"
#include "onnx/proto_convert.h"
#include "shape/call_instance.h"
#include "shape/node_checks.h"
#include "shape/onnx_node.h"
#include "shape/schema_registry.h"
#include "shape/shape_values.h"
#include "shape/type_refine.h"

namespace kiln {
namespace {

// ONNX's inference reads the data of shape-like inputs; larger constants only cost a copy.
constexpr int64_t kMaxDataElements = 4096;

// A subgraph's inference for its holder's inference function: the types it is given refine the subgraph's inputs,
// its nodes are inferred natively, and its outputs' types go back.
class IrGraphInferencer final : public onnx::GraphInferencer {
 public:
  IrGraphInferencer(Graph& g, NodeInferenceEnv& env) : g_(g), env_(env) {}

  std::vector<const onnx::TypeProto*> doInferencing(const std::vector<const onnx::TypeProto*>& input_types,
                                                    const std::vector<const onnx::TensorProto*>&) override {
    if (input_types.size() != g_.inputs().size())
      fail_type_inference("graph '", g_.name(), "' has ", g_.inputs().size(), " inputs; its holder gives ",
                          input_types.size());
    for (size_t i = 0; i < input_types.size(); ++i) {
      if (input_types[i] == nullptr) continue;
      Value* in = g_.inputs()[i];
      Type t = in->type();
      if (RefineType(t, TypeFromProto(*input_types[i]))) in->SetType(std::move(t));
    }
    env_.infer_graph(g_);
    outputs_.assign(g_.outputs().size(), onnx::TypeProto());
    std::vector<const onnx::TypeProto*> out;
    for (size_t i = 0; i < g_.outputs().size(); ++i) {
      TypeToProto(g_.outputs()[i]->type(), &outputs_[i]);
      out.push_back(&outputs_[i]);
    }
    return out;
  }

 private:
  Graph& g_;
  NodeInferenceEnv& env_;
  std::vector<onnx::TypeProto> outputs_;
};

class IrInferenceContext final : public onnx::InferenceContext {
 public:
  IrInferenceContext(const Node& n, const onnx::NodeProto& proto, NodeInferenceEnv& env)
      : n_(n), proto_(proto), env_(env), inputs_(n.num_inputs()), outputs_(n.num_outputs()),
        data_(n.num_inputs()), symbolic_(n.num_inputs()) {
    for (size_t i = 0; i < n.num_inputs(); ++i)
      if (const Value* v = n.input(i); v && v->type().kind != Type::Kind::kNone) {
        inputs_[i] = std::make_unique<onnx::TypeProto>();
        TypeToProto(v->type(), inputs_[i].get());
      }
  }

  const onnx::AttributeProto* getAttribute(const std::string& name) const override {
    for (const auto& a : proto_.attribute())
      if (a.name() == name) return &a;
    return nullptr;
  }
  size_t getNumInputs() const override { return inputs_.size(); }
  const onnx::TypeProto* getInputType(size_t i) const override { return i < inputs_.size() ? inputs_[i].get() : nullptr; }
  size_t getNumOutputs() const override { return outputs_.size(); }
  // ONNX's inference functions write output types without checking the index (Loop with fewer outputs than
  // loop-carried values, for one): an index past the node's outputs gets a scratch type that is discarded.
  onnx::TypeProto* getOutputType(size_t i) override { return i < outputs_.size() ? &outputs_[i] : &scratch_[i]; }

  const onnx::TensorProto* getInputData(size_t i) const override {
    if (i >= data_.size()) return nullptr;
    if (!data_[i]) data_[i] = MakeData(n_.input(i));
    return data_[i]->has_data_type() ? data_[i].get() : nullptr;
  }
  const onnx::TensorShapeProto* getSymbolicInput(size_t i) const override {
    if (i >= symbolic_.size()) return nullptr;
    if (!symbolic_[i]) {
      symbolic_[i] = std::make_unique<onnx::TensorShapeProto>();
      if (auto d = ShapeValueOf(n_.input(i)); d && !d->scalar) {
        for (const auto& e : d->elems) {
          auto* dim = symbolic_[i]->add_dim();
          if (e && e->constant()) dim->set_dim_value(*e->constant());
          else if (e) dim->set_dim_param(e->ToString());
        }
      } else {
        symbolic_[i].reset();
        return nullptr;
      }
    }
    return symbolic_[i].get();
  }
  const onnx::SparseTensorProto* getInputSparseData(size_t) const override { return nullptr; }

  onnx::GraphInferencer* getGraphAttributeInferencer(const std::string& name) override {
    const Attribute* a = n_.FindAttribute(name);
    if (a == nullptr || a->graph() == nullptr) return nullptr;
    inferencers_.push_back(std::make_unique<IrGraphInferencer>(*a->graph(), env_));
    return inferencers_.back().get();
  }

  std::vector<Type> Results() const {
    std::vector<Type> out;
    for (const auto& t : outputs_) out.push_back(t.value_case() == onnx::TypeProto::VALUE_NOT_SET ? Type{} : TypeFromProto(t));
    return out;
  }

 private:
  // The data of a constant input (initializer, Constant node) or of a fully known shape value; an empty proto
  // when there is none.
  static std::unique_ptr<onnx::TensorProto> MakeData(const Value* v) {
    auto p = std::make_unique<onnx::TensorProto>();
    if (v == nullptr) return p;
    const Tensor* t = nullptr;
    if (v->initializer() && !v->is_graph_input()) {
      t = v->initializer().get();
    } else if (const Node* c = v->producer(); c && c->op_type() == "Constant" && c->domain().empty()) {
      if (const Attribute* a = c->FindAttribute("value"); a && a->t) t = &*a->t;
    }
    if (t != nullptr) {
      if (t->num_elements() <= kMaxDataElements) TensorToProto(*t, p.get(), nullptr);
      return p;
    }
    auto d = ShapeValueOf(v);
    const DataType type = v->type().elem;
    if (!d || !d->fully_known() || (type != DataType::kInt64 && type != DataType::kInt32)) return p;
    p->set_data_type(static_cast<int32_t>(type));
    if (!d->scalar) p->add_dims(static_cast<int64_t>(d->elems.size()));
    for (const auto& e : d->elems) {
      if (type == DataType::kInt64) p->add_int64_data(*e->constant());
      else p->add_int32_data(static_cast<int32_t>(*e->constant()));
    }
    return p;
  }

  const Node& n_;
  const onnx::NodeProto& proto_;
  NodeInferenceEnv& env_;
  std::vector<std::unique_ptr<onnx::TypeProto>> inputs_;
  std::vector<onnx::TypeProto> outputs_;
  std::map<size_t, onnx::TypeProto> scratch_;
  mutable std::vector<std::unique_ptr<onnx::TensorProto>> data_;
  mutable std::vector<std::unique_ptr<onnx::TensorShapeProto>> symbolic_;
  std::vector<std::unique_ptr<IrGraphInferencer>> inferencers_;
};

std::vector<Type> CallTypes(const Node& call) {
  const Graph& instance = TypedCallInstance(call);
  std::vector<Type> out;
  for (size_t i = 0; i < call.num_outputs(); ++i)
    out.push_back(i < instance.outputs().size() ? instance.outputs()[i]->type() : Type{});
  return out;
}

}  // namespace

std::vector<Type> InferNodeTypes(const Node& n, NodeInferenceEnv& env) {
  if (n.graph()->model()->CalledFunction(n) != nullptr) {
    try {
      return CallTypes(n);
    } catch (const std::exception&) {
      return {};
    }
  }
  const onnx::OpSchema* schema = SchemaOf(n);
  if (schema == nullptr) return {};
  // Every present input typed: ONNX's functions read an input's type without checking that there is one.
  for (const Value* v : n.inputs())
    if (v != nullptr && v->type().kind == Type::Kind::kNone) return {};
  const onnx::NodeProto proto = NodeProtoOf(n);
  if (auto problem = CheckBeforeInference(n, proto, *schema)) {
    env.problem = *problem;
    return {};
  }
  IrInferenceContext ctx(n, proto, env);
  std::vector<Type> out(n.num_outputs());
  try {
    if (schema->has_type_and_shape_inference_function()) {
      schema->GetTypeAndShapeInferenceFunction()(ctx);
    } else if (schema->HasFunction() && schema->GetFunction() != nullptr) {
      onnx::shape_inference::InferShapeForFunctionNode(*schema->GetFunction(), &OnnxSchemas(), ctx);
    }
    out = ctx.Results();
  } catch (const std::exception&) {
    // ONNX's InferenceError (or a type error): what ONNX's function gives this node is dropped; Kiln's own rules
    // below may still apply.
  }
  RefineOutputs(n, out);
  return out;
}

}  // namespace kiln
