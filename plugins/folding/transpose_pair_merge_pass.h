// TransposePairMergePass: two Transposes in a row are one Transpose, or none.
//
//   Transpose(Transpose(x, p1), p2) -> Transpose(x, p)   with p[j] = p1[p2[j]]
//   ... and when p is the identity permutation         -> x
//
// What and when. A node pass on the outer Transpose, when its input is produced by another Transpose; a missing
// perm (the reversal) needs the rank, known from the other perm or the graph's shapes. When p is the identity the
// outer node's readers read x and it goes, unless its output is a graph output (then it stays, reading x with the
// identity perm, so the output keeps its name). The inner Transpose goes when nothing else reads it.
//
// Why correct. Transpose with perm p gives output dimension j = input dimension p[j]. The inner gives
// t_j = x_{p1[j]}, the outer y_j = t_{p2[j]} = x_{p1[p2[j]]}: one Transpose with the composed permutation.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <array>
#include <string_view>

namespace kiln::folding {

class TransposePairMergePass final : public sdk::NodePass {
 public:
  static constexpr std::string_view kName = "TransposePairMergePass";
  static constexpr std::array<std::string_view, 1> kOpTypes = {"Transpose"};
  static constexpr std::string_view kDescription = "Transpose(Transpose(x, p1), p2) -> Transpose(x, p1 o p2) or x";

  void Run(sdk::PassContext& ctx, sdk::Node node) override;
};

}  // namespace kiln::folding
