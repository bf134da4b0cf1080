// Shape inference over the IR, node by node, incrementally.
//
// What: walks the main graph in topological order and infers each node that may learn something (a new node, one
// that changed, one whose inputs' types or shape values changed: Node::shape_dirty) with its op's ONNX inference
// function through a context implemented on the IR (node_inference.h), never by exporting the model; then the
// node's shape value (shape_values.h), so shape chains give Reshape, Expand and the like their output dims with
// symbolic expressions. Subgraphs are inferred through their holders; calls of model-local functions from their
// typed instances; custom ops through the schemas plugins registered.
// When: the host's `infer_shapes` ABI slot (InferShapePass), typed call instances, the target's trace.
// Why correct: a type is only ever refined, never weakened (type_refine.h); a node that nothing about changed
// cannot infer anything new, and a change marks exactly the nodes it can affect (its readers, in every scope, and
// the nodes holding them); after any rollback every node is inferred again.
#pragma once

#include <cstddef>

#include "ir/model.h"

namespace kiln {

// Refines the value types of `model` in place; returns how many values got a more precise type.
// `inferred_nodes` (if not null) gets how many nodes' inference ran.
size_t InferShapes(Model& model, size_t* inferred_nodes = nullptr);

// Infers `model`'s shapes for as long as the scope lives, in a journal transaction its end rolls back, so the model
// leaves the scope exactly as it came (for questions that need types of a model whose pipeline may infer none, or
// has not yet). The model's journal must not be active already. Throws what InferShapes throws (rolled back).
class InferredShapesScope {
 public:
  explicit InferredShapesScope(Model& model);
  ~InferredShapesScope();
  InferredShapesScope(const InferredShapesScope&) = delete;
  InferredShapesScope& operator=(const InferredShapesScope&) = delete;

 private:
  Model& model_;
};

}  // namespace kiln
