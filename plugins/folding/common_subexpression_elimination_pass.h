// CommonSubexpressionEliminationPass: computes each value once.
//
// What. Two rewrites, in one graph at a time:
//   1. Identical constants: initializers and Constant-node outputs of the same element type, dimensions and
//      bytes (strings compared element by element) become one; readers of the others read the first.
//   2. Identical nodes: two nodes of the same op type and domain, the same attributes (names, types, values;
//      a GRAPH attribute compared structurally: same inputs' types, same nodes in topological order with equal
//      attributes, inputs that correspond position by position, equal local constants, the same outer values,
//      corresponding outputs) and the same input values slot by slot become one; readers of the second's outputs
//      read the first's.
// Nodes are visited in topological order, so after a merge the merged node's readers compare equal when they are
// (chains of duplicates collapse in one run).
//
// When. A graph pass (switch oo.commonSubexpressionElimination), subgraphs before the graph holding them.
// Not merged: non-deterministic ops (Random*, Multinomial, Dropout, whose training mode draws a mask), ops of a
// custom domain (a plugin op may keep state), nodes with an attribute the SDK cannot read (TENSORS, GRAPHS,
// SPARSE_TENSOR(S), TYPE_PROTO(S)), and nodes without outputs.
//
// Graph outputs keep their names: of two equal nodes the one whose outputs are graph outputs is kept; when both
// have graph outputs neither goes. A constant that is a graph output is never replaced.
//
// Why correct. Deterministic ONNX ops are pure functions of their inputs and attributes, so equal ops on the same
// values compute equal results; equal constants are equal values.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <string_view>

namespace kiln::folding {

class CommonSubexpressionEliminationPass final : public sdk::GraphPass {
 public:
  static constexpr std::string_view kName = "CommonSubexpressionEliminationPass";
  static constexpr std::string_view kDescription = "merges identical nodes and identical constants";
  static constexpr std::string_view kSwitchOption = "oo.commonSubexpressionElimination";

  void Run(sdk::PassContext& ctx, sdk::Graph graph) override;
};

}  // namespace kiln::folding
