// ReshapeChainMergePass: a Reshape of a Reshape reshapes the original tensor directly.
//
//   Reshape(Reshape(x, s1), s2) -> Reshape(x, s2')
//
// What and when. A node pass on the outer Reshape, when its input is produced by another Reshape and its target
// s2 is a constant. s2' is s2 when s2 has no 0 (or the outer Reshape has allowzero = 1, where 0 is a literal
// size). A 0 with allowzero = 0 copies a dimension of the intermediate tensor, not of x: it is replaced by that
// dimension when the graph knows it as a number (s2' is then a new constant); otherwise the pair is left alone.
// The inner Reshape goes when nothing else reads it.
//
// Why correct. Reshape keeps the elements in row-major order and only changes the shape, so reshaping twice is
// reshaping once to the final shape. A -1 in s2 is inferred from the element count, which x and the intermediate
// share; only 0 refers to the intermediate's own dimensions, handled above.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <array>
#include <string_view>

namespace kiln::folding {

class ReshapeChainMergePass final : public sdk::NodePass {
 public:
  static constexpr std::string_view kName = "ReshapeChainMergePass";
  static constexpr std::array<std::string_view, 1> kOpTypes = {"Reshape"};
  static constexpr std::string_view kDescription = "Reshape(Reshape(x, s1), s2) -> Reshape(x, s2)";

  void Run(sdk::PassContext& ctx, sdk::Node node) override;
};

}  // namespace kiln::folding
