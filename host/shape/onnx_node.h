// A node as ONNX's schema functions see it: its schema at the model's opset, and a NodeProto of it.
#pragma once

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

namespace kiln {

class Node;

// The node's schema at the version its model imports for its domain; null for an op without one (a custom op no
// plugin described, a model-local function, a domain the model does not import).
const onnx::OpSchema* SchemaOf(const Node& n);

// The node's NodeProto: op type, domain, name, attributes, and stand-in names for its present inputs and outputs
// ("" for an absent one). A GRAPH or GRAPHS attribute
// holds graphs with only their inputs and outputs (names and types): inference reaches bodies through its
// GraphInferencer, and Verify only checks that they are there.
onnx::NodeProto NodeProtoOf(const Node& n);

}  // namespace kiln
