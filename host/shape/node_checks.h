// The checks a node passes before ONNX's inference function for its op may run on it.
//
// What: the node against its schema (ONNX's own OpSchema::Verify: input and output counts, required inputs,
// attribute names and types, required attributes), each typed input against its parameter's type constraint
// (a sequence given to an op that reads a tensor's element type), then what libonnx 1.12's inference functions assume
// without checking and read out of bounds or divide by when it does not hold: for the convolution and pooling
// family, that kernel_shape, strides, dilations, pads, output_shape and output_padding have one entry per
// spatial axis of the input (two for pads), that strides, dilations and kernel sizes are positive and group
// divides the channels; for every op, that the ranks its inference indexes by are what it needs.
// When: before every inference call (node_inference.cc), and on a whole model before a compile that runs
// passes (CheckModelForInference), so a hostile model is an error with the node's name, never a crash.
// Why correct: each check is a precondition the ONNX specification states for the op; a node that fails one
// cannot be run by any runtime either.
#pragma once

#include <optional>
#include <string>

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

namespace kiln {

class Model;
class Node;

// What is wrong with `n` for inference, or nullopt. `proto` is the node as ONNX sees it (attributes included).
std::optional<std::string> CheckBeforeInference(const Node& n, const onnx::NodeProto& proto,
                                                const onnx::OpSchema& schema);

// Checks every node of the main graph and its subgraphs that has a schema; throws ModelError (exit code 2)
// naming the first node that fails and why.
void CheckModelForInference(const Model& model);

}  // namespace kiln
