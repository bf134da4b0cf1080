// SqueezeUnsqueezePairPass: a Squeeze and an Unsqueeze of the same axes cancel.
//
//   Squeeze(Unsqueeze(x, axes), axes) -> x
//   Unsqueeze(Squeeze(x, axes), axes) -> x
//
// What and when. A node pass on the outer node, when its input is produced by the other op and both name the
// same set of axes (as attributes before opset 13, constant inputs from 13; negative axes normalised against the
// rank each is defined on, which must then be known). A Squeeze without axes (squeeze every 1) does not pair.
// The outer node's readers read x and it goes, unless its output is a graph output (then the pair stays). The
// inner node goes when nothing else reads it.
//
// Why correct. Unsqueeze inserts size-1 dimensions at the given positions of its output; Squeeze with the same
// positions removes exactly them. Squeeze removes size-1 dimensions at positions of its input; Unsqueeze with the
// same positions (now of its output, which has the input's rank) puts them back where they were.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <array>
#include <string_view>

namespace kiln::folding {

class SqueezeUnsqueezePairPass final : public sdk::NodePass {
 public:
  static constexpr std::string_view kName = "SqueezeUnsqueezePairPass";
  static constexpr std::array<std::string_view, 2> kOpTypes = {"Squeeze", "Unsqueeze"};
  static constexpr std::string_view kDescription = "Squeeze(Unsqueeze(x, a), a) and Unsqueeze(Squeeze(x, a), a) -> x";

  void Run(sdk::PassContext& ctx, sdk::Node node) override;
};

}  // namespace kiln::folding
