// node_reader.h - the thin layer between sdk handles and the cost model: reads a node, or a group of nodes, into
// OpNode / TensorInfo. A call of a model-local function (ABI 1.2 node_function) is read as its body, recursively:
// the body's inputs and outputs take the ids and the types of the call's, and the body's attribute references
// take the call's attribute values. Tensor ids are the handles' addresses, unique within one estimate. In a call of
// an op running in a blocked format (kiln.format, not a To/From conversion), the layout nodes named with
// sdk::kFormatGluePrefix are skipped: each stands for its data input, so the op reads and writes the blocked
// tensors at their padded size and does no layout work of its own.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <span>
#include <vector>

#include "op_node.h"

namespace kiln::ascend {

// True when node calls a model-local function (false on a host without the 1.2 function slots).
bool IsFunctionCall(sdk::Node node);
// One node, its outputs' read_outside left false.
OpNode ReadNode(sdk::Node node);
// A group in the given order, calls expanded; an output is read_outside when a node outside the group (or a
// subgraph of one) reads it or it is a graph output. skip_format_glue: skip the layout nodes of blocked-format
// calls (above), as estimates do; questions about a call's formats see them (a blocked-format call reads and
// writes its tensors as they are stored).
std::vector<OpNode> ReadGroup(std::span<const sdk::Node> nodes, bool skip_format_glue = true);
// A tensor as the cost model sees it.
TensorInfo ReadTensor(sdk::Value value);

}  // namespace kiln::ascend
