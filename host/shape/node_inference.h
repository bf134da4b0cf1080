// One node's type and shape inference over the IR, by the op's own ONNX inference function.
//
// What: calls the node's schema's inference function (or infers through the schema's function body) through an
// onnx::InferenceContext implemented on the IR: input types converted from the IR, attributes, the data of
// small constant inputs and of shape values that are fully known (getInputData), shape values as symbolic inputs
// (getSymbolicInput), and subgraphs inferred natively through a GraphInferencer. Nothing is exported; a call of
// a model-local function is inferred from its typed instance (call_instance.h).
// When: host/shape/shape_inference.cc's walk, for each node that may learn something.
// Why correct: it is ONNX's own inference function, seeing what ONNX's graph inference would show it (plus shape
// values it cannot compute); errors of one node (ONNX's InferenceError, or the node's checks in node_checks.h
// failing) leave that node's outputs as they were, so inference is never less precise than the IR.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ir/node.h"
#include "ir/type.h"

namespace kiln {

class Graph;

struct NodeInferenceEnv {
  // Infers a subgraph's nodes (for If, Loop and Scan, whose inference infers their bodies).
  std::function<void(Graph&)> infer_graph;
  // Set when the node's checks fail: what is wrong with it.
  std::string problem;
};

// The output types inference gives `n` (kNone where it gives nothing); empty when no inference applies (an op
// without a schema, a node whose inputs are not all typed, a node that fails its checks: see env.problem).
std::vector<Type> InferNodeTypes(const Node& n, NodeInferenceEnv& env);

}  // namespace kiln
