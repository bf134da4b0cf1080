// Shape inference over the IR, by ONNX's own inference (libonnx, with data propagation).
//
// What: exports the model to a ModelProto, runs onnx::shape_inference::InferShapes with data propagation on, and
// copies each inferred type back onto the IR value of the same name (in subgraphs too).
// When: the host's `infer_shapes` ABI slot calls it (InferShapePass opens each folding stage).
// Why correct: a type is only ever refined, never weakened: an unknown element type, rank or dimension takes the
// inferred one; a known dimension stays; a symbolic dimension stays unless inference proved it a number. Errors
// of one node (a broken or unknown op) are ignored by ONNX's error_mode 0, so the rest of the graph is still
// inferred; custom-domain ops run their plugin's shape function through ONNX's schema registry.
#pragma once

#include <cstddef>

#include "ir/model.h"

namespace kiln {

// Refines the value types of `model` in place; returns how many values got a more precise type.
size_t InferShapes(Model& model);

}  // namespace kiln
