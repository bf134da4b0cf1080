// IdentityEliminationPass: removes nodes that return their input unchanged.
//
// What. y = op(x, ...) with y equal to x, element for element and in type and shape, is removed and y's readers
// read x. The no-op forms recognised, one rule each in the .cc:
//   Identity(x)                                   -> x
//   Dropout(x, ...) in inference, mask unused     -> x   (ratio is irrelevant when not training)
//   Cast(x, to = type of x)                       -> x
//   Reshape(x, s)  s resolves to x's own shape    -> x   (0 copies x's dim unless allowzero; one -1 takes the rest)
//   Transpose(x, perm = 0..r-1)                   -> x   (no perm: only rank <= 1)
//   Expand(x, s)   broadcast(shape(x), s) = shape(x) -> x
//   Slice(x, ...)  every sliced axis starts at 0, ends at or past its size, step 1 -> x
//   Pad(x, pads)   all pads zero                  -> x   (any mode)
// Shapes are those the graph records (static or symbolic); a rule that needs a dimension the graph does not know
// does not apply. Shape and axis arguments must be constants.
//
// When. A node pass (switch oo.identityElimination, registered by this pass, on by default from O1).
// A node whose output is a graph output is kept: removing it would rename a graph output (or make a graph input
// an output), and the graph's declared outputs keep their names.
//
// Why correct. Each rule holds exactly when the op's definition returns its input: Dropout is the identity when
// not training (ONNX: training_mode false, the default, or is_test for opsets before 7); the rest by the shape
// arguments above.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <string_view>
#include <vector>

namespace kiln::folding {

class IdentityEliminationPass final : public sdk::NodePass {
 public:
  static constexpr std::string_view kName = "IdentityEliminationPass";
  static constexpr std::string_view kDescription =
      "removes Identity, inference Dropout and no-op Cast, Reshape, Transpose, Expand, Slice and Pad";
  static constexpr std::string_view kSwitchOption = "oo.identityElimination";
  static const std::vector<std::string_view> kOpTypes;  // those of its rules

  void Run(sdk::PassContext& ctx, sdk::Node node) override;
};

}  // namespace kiln::folding
