// PotentialConstTakenEffectPass (GE's): after the walk, folds every node marked `__kiln_is_potential_const` by
// replacing its output 0 with a constant holding `__kiln_potential_weight`, then hands the consumers back to the walk
// so the other passes (ConstantFoldingPass) fold what now has constant inputs.
// When: listed under `after_walk` only (its Run does nothing); it acts in OnFinishGraph.
// Why correct: the mark's value was computed by the pass that set it from facts that do not change (known
// dimensions); the node is folded, not unmarked, so no pass's mark is cleared by another.
// Counters: nodes_folded.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <string_view>

namespace kiln::folding {

class PotentialConstTakenEffectPass : public sdk::NodePass {
 public:
  static constexpr std::string_view kName = "PotentialConstTakenEffectPass";
  static constexpr std::string_view kDescription = "after the walk, fold every potential constant";
  static constexpr std::string_view kSwitchOption = "oo.constantFolding";
  void Run(sdk::PassContext& /*ctx*/, sdk::Node /*node*/) override {}
  void OnFinishGraph(sdk::PassContext& ctx, sdk::Graph graph) override;
};

}  // namespace kiln::folding
