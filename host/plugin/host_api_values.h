// What the host slots know about values, shared by the graph, mutation, kernel and schema slots: ABI type kinds
// and element types of IR types, shapes as dims arrays, types built from what a plugin passed, the consumers of a
// value as the ABI counts them, and constant data (initializers and Constant nodes).
#pragma once

#include <kiln/kiln_plugin.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "ir/tensor.h"
#include "ir/type.h"

namespace kiln {
class Node;
class Value;

namespace plugin {

int32_t TypeKindOf(const Type& t);
// A tensor's element type, or that of a sequence's or optional's tensors; 0 when unknown.
int32_t ElemTypeOf(const Type& t);
// The rank (-1 when unknown or not a tensor); *out_dims gets frame-owned dims, -1 where not a known number.
int64_t ShapeOf(const Type& t, const int64_t** out_dims);
const char* DimSymbolOf(const Type& t, size_t index);
// A tensor type from a plugin's description (value_set_tensor_type, infer_set_output); throws on bad input.
Type TensorTypeFrom(int32_t elem_type, int64_t rank, const int64_t* dims, const char* const* symbols);

struct ConsumerSlot {
  Node* node;
  size_t input_index;  // KILN_IMPLICIT_INPUT for a read inside one of node's subgraphs
};
// One entry per (node, input slot) of the value's own graph; a node reading it inside a subgraph counts once.
std::vector<ConsumerSlot> ConsumersOf(const Value& v);

// An initializer that is not a graph input, or the output of a Constant node.
bool IsConstantValue(const Value& v);
// The data of such a value (never copied for initializers); null for anything else.
std::shared_ptr<const Tensor> ConstantTensorOf(const Value& v);

}  // namespace plugin
}  // namespace kiln
