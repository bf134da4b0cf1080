// DimensionComputePass (GE's DimensionComputePass): Shape and Size computed from the input's known dimensions,
// and Gather(Shape(x), constant indices) when the dimensions it picks are known (a symbolic batch elsewhere); with
// a host of ABI 1.4, also their kin: any single-output integer node whose value shape inference computed
// completely from shapes (Slice, Concat, Cast, Squeeze, arithmetic of shape pieces: value_shape_data).
// Before: s = Shape(x), x: float[2,3,4]         After (need_fold=true):  s = constant [2,3,4]
//                                               After (need_fold=false): Shape marked __kiln_is_potential_const with
//                                               __kiln_potential_weight=[2,3,4]; PotentialConstTakenEffectPass folds it
//                                               after the walk, ConstantFoldingPass reads the value meanwhile.
// When: the dimensions it needs are known numbers (for Shape, those in [start, end); for Size, all of them; for the
// kin, every element of the inferred value).
// Why correct: Shape and Size depend on the input's shape only, never on its data; the value is computed by the
// pass itself from the type (the host's built-in semantics of Shape-15's start/end clamping), or by the host's
// shape values, which compute exactly what the ops compute (host/shape/shape_values.h).
// After the walk (OnFinishGraph), when a Shape or Size still waits for dimensions that folding may have made
// known, shape inference runs again and the nodes that became computable are handed back to the walk.
// Counters: nodes_folded, nodes_marked, inference_reruns.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <string_view>
#include <vector>

namespace kiln::folding {

class DimensionComputePass : public sdk::NodePass {
 public:
  static constexpr std::string_view kName = "DimensionComputePass";
  static constexpr std::string_view kDescription = "Shape and Size from known dimensions (GE semantics)";
  static constexpr std::string_view kSwitchOption = "oo.constantFolding";
  static std::vector<sdk::OptionSpec> Options();
  void Run(sdk::PassContext& ctx, sdk::Node node) override;
  // Re-runs shape inference when a Shape/Size still waits for dimensions, and hands back what became computable.
  void OnFinishGraph(sdk::PassContext& ctx, sdk::Graph graph) override;
};

}  // namespace kiln::folding
