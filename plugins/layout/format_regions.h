// format_regions.h - which nodes of a graph run in a blocked format on the active target, planned before anything
// changes (TargetFormatPass then carries the plan out).
//
// Anchors: nodes whose input 0 the target prefers in a blocked format (target_preferred_format: NC1HWC0, or
// NDC1HWC0 for 5-D; Conv, pooling, a fused call whose body starts with one), with a known channel count and a
// storage shape (target_storage_shape, ABI 1.6) that is the blocked layout of blocked_layout.h. An anchor's output
// 0 is blocked too when the target prefers it so or lets it follow ("" = any) and it fits the same kind of layout.
// Its other inputs are read blocked when they already are blocked tensors and the target prefers them so or lets
// them follow (a fused Conv + Add + Relu reads the residual blocked, as GE's fused kernel does).
// Agnostic nodes (the target prefers "" for every input and output: element-wise ops and calls of them) with one
// output, whose blocked inputs share one layout and the output's dims, and whose other inputs hold one element,
// run blocked when one of their inputs is: GE's heavy-format propagation (Conv -> ReLU -> Conv needs no
// conversion between the convs).
//
// Regions: anchors and agnostic nodes joined by the blocked tensors between them. A region needs a To conversion
// for every ND tensor an anchor reads and a From conversion for every blocked tensor that a node outside the region
// or the graph's outputs read. It is taken when those conversions, plus the padding lanes its agnostic nodes
// process, cost no more (target_transfer_cost) than what its anchors cost converting at their own edges, which is
// what a kernel in the blocked format does when its neighbours stay ND.
#pragma once

#include <kiln/kiln_plugin.hpp>
#include <kiln/kiln_plugin_target.hpp>

#include <cstddef>
#include <map>
#include <vector>

#include "blocked_layout.h"

namespace kiln::layout {

struct FormatMember {
  sdk::Node node;
  bool anchor = false;
  bool output_blocked = false;  // anchors: whether output 0 stays blocked (agnostic members always)
  BlockedLayout input_layout;   // anchors: input 0's
  BlockedLayout output_layout;  // output 0's, when blocked
  size_t region = 0;
  // Anchors: the inputs read blocked: 0, and any other the target prefers blocked or lets follow ("") that is
  // already a blocked tensor (the residual input of a fused Conv + Add call), with their layouts.
  std::vector<std::pair<size_t, BlockedLayout>> blocked_inputs;
};

struct FormatRegion {
  size_t anchors = 0, agnostic = 0, to_conversions = 0, from_conversions = 0;
  double blocked_seconds = 0;  // the region's conversions and padding
  double nd_seconds = 0;       // its anchors converting at their own edges
  bool chosen = false;
};

struct FormatPlan {
  std::vector<FormatMember> members;  // in topological order
  std::vector<FormatRegion> regions;
  std::map<KilnValue*, size_t> region_of_value;  // every blocked tensor (as the ND value it replaces)
  std::string format;                            // the blocked format of the first region, for the report
};

// Plans graph (a main graph) for the active target; an empty plan when the target describes no storage shapes.
FormatPlan PlanFormats(sdk::Graph graph);

}  // namespace kiln::layout
