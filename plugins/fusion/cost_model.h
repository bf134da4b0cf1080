// What fusing a group is worth. With an active target (oo.target) the host forwards to its cost model
// (KilnTargetInfo.estimate: a roofline per engine plus launch and barrier costs, and whether the group fits on
// chip). Without one, a generic model: every kernel costs a launch, and time is the larger of compute at a nominal
// rate and off-chip traffic at a nominal bandwidth; a fused group pays one launch and moves only its external
// inputs and outputs (fusion-facts §5.5). Symbolic dimensions count as 1.
//
//   gain = sum over the nodes of time(node alone) - time(group fused);   relative gain = gain / sum
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <string>
#include <vector>

namespace kiln::fusion {

struct GroupCost {
  double unfused_seconds = 0, fused_seconds = 0;
  bool feasible = true;
  std::string reason;    // the target's note or why it is not feasible
  std::string model;     // "target <name>" or "generic"
  double Gain() const { return unfused_seconds - fused_seconds; }
  double RelativeGain() const { return unfused_seconds > 0 ? Gain() / unfused_seconds : 0; }
};

// Nodes in topological order, all of one graph.
GroupCost EstimateGroup(const std::vector<sdk::Node>& nodes);

// Bytes of a value's tensor (symbolic dimensions as 1); 0 when unknown.
uint64_t ValueBytes(const sdk::Value& v);

}  // namespace kiln::fusion
