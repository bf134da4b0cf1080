// DimensionAdjustPass (GE's): an Unsqueeze, Squeeze or Reshape whose output shape already equals its input
// shape does nothing; it becomes a bypass from input 0 to output 0, and its axes/shape constant goes if unused.
// Before: y = Unsqueeze(x, axes), x: [1,3], y: [1,3]  (cannot happen for a valid Unsqueeze; typical: Squeeze
//         with no size-1 axis left, Reshape to the same shape)        After: consumers of y read x.
// When: both shapes are known to the same rank and every dimension is equal (the same number or the same
// symbol); the node's second input, if any, is a constant (GE's condition).
// Why correct: these ops only relabel dimensions; equal shapes mean identical data layout.
// Counters: nodes_bypassed.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <array>
#include <string_view>

namespace kiln::folding {

class DimensionAdjustPass : public sdk::NodePass {
 public:
  static constexpr std::string_view kName = "DimensionAdjustPass";
  static constexpr std::array<std::string_view, 3> kOpTypes = {"Unsqueeze", "Squeeze", "Reshape"};
  static constexpr std::string_view kDescription = "bypass Squeeze/Unsqueeze/Reshape whose effect is already there";
  static constexpr std::string_view kSwitchOption = "oo.constantFolding";
  void Run(sdk::PassContext& ctx, sdk::Node node) override;
};

}  // namespace kiln::folding
