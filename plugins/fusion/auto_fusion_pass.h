// AutoFusionPass: groups nodes no rule covered by their op kind (op_kinds.h) over the post-dominator tree, as TVM's
// FuseOps does, then fuses each group the cost model finds worth it.
//
// What. In three phases over the nodes in topological order, a node is merged with its immediate post-dominator d
// (the host's analysis) when every node on every path between them allows it:
//   phase 0: an out-element-wise-fusable node (Conv, MatMul) takes the element-wise and broadcast nodes up to d
//            when d is element-wise or broadcast; an element-wise or broadcast node joins d (injective or reduction,
//            or element-wise ones) through injective nodes;
//   phase 1: an injective node joins d through injective nodes;
//   phase 2: element-wise nodes left alone join an injective d.
// A group never holds two out-element-wise-fusable nodes nor an opaque one, and holds at most fusion.maxGroupSize
// nodes. Each group of two or more nodes is then estimated (cost_model.h: the active target's model, or the generic
// one) and fused into a kiln.fused call when its gain relative to the nodes run one by one reaches fusion.threshold
// and the target can run it as one kernel.
//
// When. A graph pass of the Autofuse stage after PatternFusionPass; fusion.mode `auto` or `both` (O3) runs it.
//
// Why correct. Post-dominance makes a group's only exit its post-dominator: every path from a member leaves
// through d, so nothing outside reads a member's value and no path leaves the group and comes back (legality.h
// checks both again before outlining).
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <string_view>

namespace kiln::fusion {

class AutoFusionPass final : public sdk::GraphPass {
 public:
  static constexpr std::string_view kName = "AutoFusionPass";
  static constexpr std::string_view kDescription = "groups element-wise, injective and reduction nodes by op kind "
                                                   "over the post-dominator tree; the cost model decides";
  static constexpr std::string_view kSwitchOption = "oo.fusion";

  void Run(sdk::PassContext& ctx, sdk::Graph graph) override;
};

}  // namespace kiln::fusion
