// A call's typed instance: the work one call of a model-local function does, as the graph a cost model reads.
//
// What: the called body expanded for this call (ExpandCall: attribute references bound, nested calls expanded)
// into the graph of a scratch model whose inputs have the call's input types (an initializer input stays a
// constant, a Constant node feeding the call is copied in), whose outputs have the call's output types, and whose
// other values have the types ONNX shape inference gives them from there.
// When: a target estimating a fused call (host slot node_call_instance) needs the shapes of the body's
// intermediates, which the body cannot give: one body serves every call of the same form, whatever its shapes.
// Why correct: the instance is built from the call's own inputs, attributes and the current body, and is cached
// under a key made of exactly those (the function, its body's and nested bodies' structure versions, the input
// types and constants, the attributes), so a change to any of them builds it again.
#pragma once

#include "ir/graph.h"
#include "ir/node.h"

namespace kiln {

// The instance of `call` (a call of a function of its model: InternalError otherwise). Owned by the model; valid
// until the next question about the same call or the model's next CollectGarbage.
const Graph& TypedCallInstance(const Node& call);

}  // namespace kiln
