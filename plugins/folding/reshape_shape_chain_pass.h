// ReshapeShapeChainPass: a Reshape target that copies dimensions of the reshaped tensor itself through a Shape
// chain becomes a constant target with 0 in those places.
//
//   d = Unsqueeze(Gather(Shape(x), k), [0])            (or Gather(Shape(x), [k]))
//   y = Reshape(x, Concat(..., d, ...))   with d at position k of the target
//     -> y = Reshape(x, [..., 0, ...])
//
// What and when. A node pass on a Reshape with allowzero = 0 whose target is a Concat along axis 0 of 1-D
// pieces, each either a constant INT64/INT32 vector or one element read from the shape of x, the very tensor
// being reshaped, by Gather with a constant index k (a scalar under Unsqueeze with axes [0], or a one-element
// vector), where k (made non-negative with x's rank) is the position that element takes in the target. The
// Shape must read the whole shape (no start or end). When every piece is one of these, the target becomes one
// constant; the Shape chain, unread, is left to dead code elimination. This is the flatten-before-the-classifier
// of exported CNNs, x.view(x.size(0), -1), and the attention reshapes x.view(x.size(0), x.size(1), h, d).
// ONNX Runtime's basic level reaches the same [0, -1].
//
// With a host of ABI 1.4 the target may also be any computation shape inference evaluated (value_shape_data):
// an element equal to x's dimension at its position becomes 0, a known number stays, and one element left over
// becomes -1 when every other element is a known positive number: x.view(x.size(0) * x.size(1), 768) on
// x: [batch, seq, 768] is Reshape(x, [-1, 768]).
//
// Why correct. With allowzero = 0, a 0 at position k of Reshape's target means "dimension k of the input" (ONNX
// Reshape), and the replaced piece is exactly dimension k of that input, read at run time. The other pieces are
// unchanged constants, so the target has the same value for every input shape. (A 0 already in a constant piece
// keeps its meaning.) A -1 stands for the one element Reshape infers from the element count; with every other
// element a positive number that element is unique, and it is the original element, which the original target
// made the element count agree with.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <array>
#include <string_view>

namespace kiln::folding {

class ReshapeShapeChainPass final : public sdk::NodePass {
 public:
  static constexpr std::string_view kName = "ReshapeShapeChainPass";
  static constexpr std::array<std::string_view, 1> kOpTypes = {"Reshape"};
  static constexpr std::string_view kDescription =
      "Reshape(x, Concat(.., Gather(Shape(x), k) at position k, ..)) -> Reshape(x, [.., 0, ..])";

  void Run(sdk::PassContext& ctx, sdk::Node node) override;
};

}  // namespace kiln::folding
