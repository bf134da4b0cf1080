// Op kinds for automatic grouping, as TVM's FuseOps has them (fusion-facts §3.1):
//   kElemWise        one output element from one input element of each input, same shapes (Relu, Exp, Cast);
//   kBroadcast       element-wise with broadcasting (Add, Mul, Where); one whose inputs all have the output's static
//                    shape counts as kElemWise;
//   kInjective       each output element reads one input element (Reshape, Transpose, Concat, Slice, Gather);
//   kCommReduce      a commutative reduction (ReduceSum, ReduceMean, GlobalAveragePool);
//   kOutEWiseFusable a complex op whose output may absorb element-wise consumers (Conv, MatMul, Gemm, Softmax,
//                    pooling); two of them never go in one group;
//   kOpaque          anything else: control flow, random ops, sequence ops, other domains, fused calls, and shape
//                    arithmetic (integer tensors of under 64 elements, which runs on the host).
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <string_view>

namespace kiln::fusion {

enum class OpKind : int { kElemWise = 0, kBroadcast = 1, kInjective = 2, kCommReduce = 3, kOutEWiseFusable = 4, kOpaque = 8 };

OpKind KindOf(const sdk::Node& node);
std::string_view KindName(OpKind kind);

}  // namespace kiln::fusion
