// TransposeGemmFoldPass: a Transpose of a matrix that Gemm reads becomes Gemm's transA / transB.
//
//   Gemm<transA=a, transB=b>(Transpose(A), B)  -> Gemm<transA=!a, transB=b>(A, B)     (and the same for B)
//   MatMul(Transpose(A), B), A and B of rank 2 -> Gemm<transA=1>(A, B)               (and the same for B)
//
// What and when. A node pass on Gemm and MatMul (default domain). A Transpose folds when its input has rank 2 (its
// perm is [1, 0] or missing), it is no graph output and this node alone reads it (otherwise it would stay for its
// other readers and nothing is saved). MatMul becomes Gemm only when both operands have rank 2, their element type
// is one Gemm takes (float16, bfloat16, float, double, int32, int64, uint32, uint64), the default opset is 11 or
// more (Gemm without C) and its output is no graph output (the new Gemm writes a new value). A batched MatMul keeps
// its Transpose: ONNX's MatMul has no transpose attribute. Constant operands are left to constant folding, which
// transposes the data itself. Counter: transposes_folded.
//
// Why correct. Gemm computes alpha * op(A) * op(B) + beta * C with op(X) = X^T when its trans flag is set, so a
// Transpose in front of an operand is the same as toggling its flag; MatMul of two matrices is Gemm with
// alpha = 1 and no C.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <array>
#include <string_view>

namespace kiln::folding {

class TransposeGemmFoldPass final : public sdk::NodePass {
 public:
  static constexpr std::string_view kName = "TransposeGemmFoldPass";
  static constexpr std::array<std::string_view, 2> kOpTypes = {"Gemm", "MatMul"};
  static constexpr std::string_view kDescription =
      "Gemm(Transpose(A), B) -> Gemm<transA>(A, B); MatMul of a transposed matrix -> Gemm with the trans flag";

  void Run(sdk::PassContext& ctx, sdk::Node node) override;
};

}  // namespace kiln::folding
