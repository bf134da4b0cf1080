// TransposePushPass: moves a Transpose below the op that reads it, so that inverse pairs meet and cancel.
//
//   Op(Transpose(x, p))                        -> Transpose(Op(x), p)             unary element-wise, Cast, Clip
//   Op(Transpose(x, p), c)                     -> Transpose(Op(x, c'), p)         binary / n-ary element-wise
//   Op(Transpose(x, p), Transpose(z, p))       -> Transpose(Op(x, z), p)
//   Reduce<axes=A, keepdims=1>(Transpose(x,p)) -> Transpose(Reduce<axes={p[a]}>(x), p)
//   Reduce<axes=A, keepdims=0>(Transpose(x,p)) -> Transpose(Reduce<axes={p[a]}>(x), q), q: p without A, renumbered
//   Concat<axis=a> / Split<axis=a>             -> the same op with axis p[a], the Transpose after it
//   Pad(pads) / Slice(axes)                    -> pads reordered / axes mapped through p, the Transpose after it
//
// What and when. A node pass on the reader of a Transpose. It applies when every Transpose it moves is read by
// that node alone (no duplication) and is no graph output, and when every other data input is a constant (c' is c
// unsqueezed to the full rank, then transposed by p's inverse, as a new constant), a tensor of one element, or a
// Transpose with the same perm: one Transpose is created for the k >= 1 removed. Split gets one Transpose per
// output, so it is pushed only when every output is read by Transposes alone (TransposePairMergePass then merges
// each pair). A reduction whose moved permutation is the identity (all axes reduced, or the kept axes in order)
// needs no Transpose after it. The created Transpose is a new node the walk visits next, so it keeps moving down
// and meets its inverse, which TransposePairMergePass (in the same walk) removes. Counter: transposes_pushed, and
// transposes_absorbed for pushes that leave no Transpose behind.
//
// Why correct. Transpose with perm p gives t_j = x_{p[j]}. An element-wise op commutes with any permutation of
// the index space when its other operands are permuted alike: Transpose(c', p) = c (c' = Transpose(c, p^-1)), and a
// one-element tensor is the same in every layout. Axis j of t is axis p[j] of x, so an axis-taking op on t equals
// the op on x with its axes mapped through p, followed by the same permutation of the dimensions that remain.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <string_view>
#include <vector>

namespace kiln::folding {

class TransposePushPass final : public sdk::NodePass {
 public:
  static constexpr std::string_view kName = "TransposePushPass";
  static const std::vector<std::string_view> kOpTypes;  // those Plan reads
  static constexpr std::string_view kDescription =
      "Op(Transpose(x, p)) -> Transpose(Op'(x), p) through element-wise ops, reductions, Concat, Split, Pad, Slice";

  void Run(sdk::PassContext& ctx, sdk::Node node) override;
};

}  // namespace kiln::folding
