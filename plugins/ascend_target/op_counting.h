// op_counting.h - what one node computes and moves, from its op type, attributes and shapes.
//
// FLOPs (operations counted; a multiply-accumulate is 2):
//   conv            Conv, ConvInteger, QLinearConv: 2 * N * M * prod(out spatial) * (C/group) * prod(kernel),
//                   plus N * M * prod(out spatial) for a bias. Output spatial sizes come from the output's shape,
//                   else from pads, strides, dilations and auto_pad.
//   conv_transpose  2 * N * C * prod(in spatial) * (M/group) * prod(kernel), plus the bias adds.
//   matmul          MatMul, MatMulInteger, QLinearMatMul: 2 * batch * M * N * K (1-D operands promoted as ONNX
//                   does, batch dimensions broadcast).
//   gemm            2 * M * N * K, + M*N when alpha != 1, + M*N for C, + M*N when beta != 1 with C.
//   elementwise     the largest output's elements * factor(op).
//   reduction, norm, softmax, input_elements   input 0's elements * factor(op).
//   pooling         windowed: output elements * prod(kernel_shape) * factor; global: input elements * factor.
//   data_movement, view, shape, constant   0.
// factor(op) is the class's factors table: the op's entry, else "default", else 1.
//
// Bytes: each distinct tensor a node reads or writes, once (views, shape ops and constants move nothing).
//
// Row elements: what a one-pass kernel must hold of one reduction row at once - the product of the reduced
// dimensions of a Reduce*/ArgMax (axes from the attribute or the constant input), of Softmax's axis (the
// flattened tail before opset 13), of LayerNormalization's / RMSNormalization's normalized tail, of
// InstanceNormalization's spatial dims, of GroupNormalization's C/G * spatial, of a global pool's spatial dims;
// 0 for everything else (it streams).
//
// Symbolic and unknown dimensions count as the description's assumptions.symbolic_dim; a tensor of unknown rank
// counts as that many elements. Every such substitution is recorded in Notes so the estimate can say so.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "op_node.h"
#include "target_description.h"

namespace kiln::ascend {

// What the counting had to assume.
struct Notes {
  std::set<std::string> symbols;         // symbolic dimensions taken as assumptions.symbolic_dim
  std::set<std::string> unknown_shapes;  // tensors of unknown rank
  std::set<std::string> untyped;         // tensors of unknown (or variable-size) element type
  std::set<std::string> other;           // rate fall-backs and the like
  bool empty() const { return symbols.empty() && unknown_shapes.empty() && untyped.empty() && other.empty(); }
  void Merge(const Notes& n) {
    symbols.insert(n.symbols.begin(), n.symbols.end());
    unknown_shapes.insert(n.unknown_shapes.begin(), n.unknown_shapes.end());
    untyped.insert(n.untyped.begin(), n.untyped.end());
    other.insert(n.other.begin(), n.other.end());
  }
  // "symbolic dims taken as 1: batch, seq; unknown shapes counted as 1 element: x; ..." ("" when empty).
  std::string Text(double symbolic_dim) const;
};

class Counter {
 public:
  Counter(double symbolic_dim, Notes* notes) : symbolic_dim_(symbolic_dim), notes_(notes) {}

  // The dimensions with every unknown one replaced by symbolic_dim; {symbolic_dim} for an unknown rank.
  std::vector<double> Dims(const TensorInfo& t) const;
  double Elements(const TensorInfo& t) const;
  double Bytes(const TensorInfo& t) const;
  // Whether every dimension is a known number.
  static bool IsStatic(const TensorInfo& t);

  double Flops(const OpNode& n, CostRule rule, const NumberTable& factors) const;
  double Bytes(const OpNode& n, CostRule rule) const;
  double RowElements(const OpNode& n, CostRule rule) const;

 private:
  double ConvFlops(const OpNode& n, bool transpose) const;
  double MatMulFlops(const OpNode& n) const;
  double GemmFlops(const OpNode& n) const;
  double PoolFlops(const OpNode& n, double factor) const;
  double ReduceRow(const OpNode& n) const;
  double NormRow(const OpNode& n) const;

  double symbolic_dim_;
  Notes* notes_;
};

double Factor(const NumberTable& factors, std::string_view op_type);

}  // namespace kiln::ascend
