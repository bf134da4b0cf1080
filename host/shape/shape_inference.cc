// Native, incremental shape inference over the IR: see shape_inference.h.
#include "shape/shape_inference.h"

#include <vector>

#include "analysis/topo_cache.h"
#include "ir/graph.h"
#include "ir/journal.h"
#include "shape/node_inference.h"
#include "shape/shape_values.h"
#include "shape/type_refine.h"
#include "support/error.h"
#include "support/logging.h"

namespace kiln {
namespace {

bool IsStatic(const Type& t) {
  return t.kind == Type::Kind::kTensor && t.elem != DataType::kUndefined && t.shape && t.shape->is_static();
}

bool MayHoldShapeValue(const Value* v) {
  if (v == nullptr) return false;
  const DataType e = v->type().elem;
  return e == DataType::kUndefined || e == DataType::kInt64 || e == DataType::kInt32;
}

class Inference {
 public:
  size_t refined = 0;
  size_t inferred = 0;

  void Graph_(Graph& g) {
    // Not a copy (8 bytes a node): inference changes types, never a graph's nodes, so the cached order stays.
    const std::vector<Node*>& order = CachedTopoOrder(g);
    for (Node* n : order)
      if (n->shape_dirty() && !n->is_deleted()) Node_(*n);
  }

 private:
  // Nothing can be learned about a node all of whose outputs are typed completely (with numbers, or for a call
  // with symbols from the model): it is not inferred again. A node holding subgraphs is, for their sake.
  static bool Complete(const Node& n, bool is_call) {
    if (n.has_subgraphs()) return false;
    for (const Value* out : n.outputs())
      if (out != nullptr && !(is_call ? IsSaturated(out->type()) : IsStatic(out->type()))) return false;
    return true;
  }

  void Node_(Node& n) {
    n.ClearShapeDirty();
    const bool is_call = n.graph()->model()->CalledFunction(n) != nullptr;
    if (!Complete(n, is_call)) {
      NodeInferenceEnv env{[this](Graph& sub) { Graph_(sub); }, {}};
      std::vector<Type> types = InferNodeTypes(n, env);
      ++inferred;
      if (!env.problem.empty())
        Logger("shape")->debug("node '{}' ({}) is not inferred: {}", n.name(), n.op_type(), env.problem);
      for (size_t i = 0; i < types.size() && i < n.num_outputs(); ++i) {
        Value* out = n.output(i);
        if (out == nullptr) continue;
        Type t = out->type();
        if (RefineType(t, types[i])) {
          out->SetType(std::move(t));
          ++refined;
        }
      }
    }
    if (MayHoldShapeValue(n.output(0))) {
      Value* out = n.output(0);
      std::shared_ptr<const ShapeData> d = PropagateShapeValue(n);
      const bool changed = d ? !out->shape_data() || !(*out->shape_data() == *d) : out->shape_data() != nullptr;
      if (changed) out->SetShapeData(std::move(d), true);
    }
    // Bodies the holder's inference did not reach (it failed, or its op has no schema) are inferred all the same.
    for (Graph* sub : n.subgraphs()) Graph_(*sub);
  }
};

}  // namespace

size_t InferShapes(Model& model, size_t* inferred_nodes) {
  if (model.shape_inference_rollbacks != Journal::RollbackCount()) {
    // A rollback may have taken back types this inference gave: start over.
    ForEachGraph(model, [](const Graph& g) {
      for (const auto& n : g.nodes()) n->MarkShapeDirty();
    });
    model.shape_inference_rollbacks = Journal::RollbackCount();
  }
  Inference inference;
  inference.Graph_(model.graph());
  Logger("shape")->debug("shape inference: {} nodes inferred, {} values refined", inference.inferred, inference.refined);
  if (inferred_nodes != nullptr) *inferred_nodes = inference.inferred;
  return inference.refined;
}

InferredShapesScope::InferredShapesScope(Model& model) : model_(model) {
  if (model.journal().active()) throw InternalError("InferredShapesScope needs a model outside any transaction");
  model.journal().Begin();
  try {
    InferShapes(model);
  } catch (...) {
    model.journal().Rollback();
    throw;
  }
}

InferredShapesScope::~InferredShapesScope() { model_.journal().Rollback(); }

}  // namespace kiln
