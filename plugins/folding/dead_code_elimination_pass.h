// DeadCodeEliminationPass: removes the nodes whose results nothing declared as a result needs.
//
// What "dead" means. In a graph G, a node is live when one of its outputs is an output of G, or is read by a live
// node of G (as an input, or from inside one of that node's subgraphs). Every other node of G is dead, including
// nodes without outputs. A subgraph's outputs are its roots, exactly like the main graph's; an outer value that a
// live node's subgraph reads keeps its producer live. Graph inputs and outputs are never removed or changed.
//
// When. A graph pass (switch oo.deadCodeElimination); the driver runs it on every subgraph before the graph that
// holds it, so a subgraph's dead nodes are gone (with their reads of outer values) before the outer graph is
// examined.
//
// Why correct. ONNX ops have no side effects; a node's outputs are its only effect, so removing a node no live
// node or graph output reads cannot change any output. Nodes are deleted consumers first (reverse topological
// order), so each deletion removes a node whose outputs are already unused.
//
// Constants: Constant nodes are nodes and follow the rule above. Initializers nothing reads (that are not graph
// inputs or outputs) are removed too, whether a deletion freed them or they were unused already.
//
// Functions: on the main graph, once its dead nodes are gone, a model-local function that no node of the model
// calls (in any graph or function body) is removed, repeatedly, so a function only a removed function called goes
// too.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <string_view>

namespace kiln::folding {

class DeadCodeEliminationPass final : public sdk::GraphPass {
 public:
  static constexpr std::string_view kName = "DeadCodeEliminationPass";
  static constexpr std::string_view kDescription = "removes nodes whose outputs reach no graph output";
  static constexpr std::string_view kSwitchOption = "oo.deadCodeElimination";
  // Deleting nodes keeps the order of the others topological.
  static constexpr uint32_t kPreservedAnalyses = KILN_ANALYSIS_TOPO_ORDER;

  void Run(sdk::PassContext& ctx, sdk::Graph graph) override;
};

}  // namespace kiln::folding
