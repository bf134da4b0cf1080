// PatternFusionPass: applies the fusion rule packs (rule_set.h) to a graph.
//
// What. Every rule whose pattern matches is a candidate: `fuse` rules outline their nodes into one call of a
// kiln.fused model-local function (one body per shape of group), `rewrite` rules replace them by standard ONNX ops.
//
// How. One walk over the graph in topological order tries, at each node, the rules indexed under its op type
// (linear in nodes), skipping those whose root needs an operand made by an op that makes none of the node's inputs
// (Rule::operand_ops: most rules tried at a node end there, before any search). Overlapping candidates are resolved by benefit (the larger keeps its nodes; ties go to the
// earlier root): the walk is made once per benefit, highest first, and each candidate is decided as it is found, so
// only the kept ones are held. Each kept candidate must be legal (legality.h) and, with a target, feasible on it (its cost model
// may refuse a group, e.g. one over the on-chip buffer). Kept candidates are applied together; the walk repeats on
// the changed graph (a rewrite may enable a fusion: decomposed LayerNorm -> LayerNormalization, then
// Add + LayerNormalization), at most fusion.maxRounds times.
//
// When. A graph pass of the Autofuse stage (O2 and O3); fusion.mode `pattern` or `both` runs it, `auto` skips it.
// The driver runs it on every subgraph, innermost first, so groups never cross a subgraph boundary.
//
// Why correct. A fused call computes its body, which is the matched nodes unchanged (model-local functions are
// inlined by every runtime, or run as a kernel); legality keeps the call from reading its own results (no cycle) and
// keeps every value read outside the group an output of the call. A rewrite's replacement is the rule's stated
// identity, guarded by its predicates (constant values, ranks, shapes, opset).
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <string_view>
#include <vector>

#include "rule_set.h"

namespace kiln::fusion {

class PatternFusionPass final : public sdk::GraphPass {
 public:
  static constexpr std::string_view kName = "PatternFusionPass";
  static constexpr std::string_view kDescription = "applies the fusion rule packs: fused calls and rewrites";
  static constexpr std::string_view kSwitchOption = "oo.fusion";
  static std::vector<sdk::OptionSpec> Options();

  void Run(sdk::PassContext& ctx, sdk::Graph graph) override;
  // Starts reading the built-in rule packs while the host reads the model (PackPrefetch).
  void Prepare() override;

 private:
  PackPrefetch prefetch_;  // joined by the destructor if the compile failed before Run took it
};

}  // namespace kiln::fusion
