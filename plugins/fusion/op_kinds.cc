#include "op_kinds.h"

#include <algorithm>

#include "legality.h"

namespace kiln::fusion {
namespace {

template <size_t N>
bool In(const std::string_view (&list)[N], std::string_view op) {
  return std::find(std::begin(list), std::end(list), op) != std::end(list);
}

const std::string_view kUnary[] = {
    "Abs",   "Acos",     "Acosh",   "Asin",  "Asinh",     "Atan",    "Atanh",    "Ceil",     "Cos",   "Cosh",
    "Elu",   "Erf",      "Exp",     "Floor", "HardSigmoid", "HardSwish", "Identity", "IsInf",  "IsNaN", "LeakyRelu",
    "Log",   "Neg",      "Not",     "Reciprocal", "Relu",  "Round",   "Selu",     "Sigmoid",  "Sign",  "Sin",
    "Sinh",  "Softplus", "Softsign", "Sqrt", "Tan",       "Tanh",    "ThresholdedRelu", "Celu", "Mish", "Gelu",
    "Cast",  "CastLike", "Clip",    "Shrink", "Dropout"};
const std::string_view kBinary[] = {"Add",     "Sub",           "Mul",          "Div",  "Pow", "Max", "Min",
                                    "Mean",    "Sum",           "Equal",        "Greater", "Less", "GreaterOrEqual",
                                    "LessOrEqual", "And",       "Or",           "Xor",  "Where", "Mod", "PRelu",
                                    "BitShift", "BitwiseAnd",   "BitwiseOr",    "BitwiseXor"};
const std::string_view kInjective[] = {"Reshape", "Transpose", "Squeeze", "Unsqueeze", "Flatten", "Concat",
                                       "Slice",   "Gather",    "Expand",  "Tile",      "Pad",     "DepthToSpace",
                                       "SpaceToDepth", "GatherElements", "Split", "ReverseSequence"};
const std::string_view kReduce[] = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
                                    "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare", "ArgMax",
                                    "ArgMin", "GlobalAveragePool", "GlobalMaxPool"};
const std::string_view kComplex[] = {"Conv",     "ConvTranspose", "MatMul",      "Gemm",       "Softmax",
                                     "LogSoftmax", "MaxPool",     "AveragePool", "LpPool",     "BatchNormalization",
                                     "InstanceNormalization", "LayerNormalization", "ConvInteger", "MatMulInteger",
                                     "QLinearConv", "QLinearMatMul"};

bool SmallInteger(const sdk::Value& v) {
  if (!v) return false;
  int32_t t = v.ElemType();
  if (t != KILN_ELEM_INT64 && t != KILN_ELEM_INT32) return false;
  if (!v.HasStaticShape()) return v.Rank() <= 1;
  int64_t n = 1;
  for (int64_t d : v.Dims()) n *= d;
  return n < 64;
}

bool SameStaticShapes(const sdk::Node& n) {
  sdk::Value out = n.Output(0);
  if (!out || !out.HasStaticShape()) return false;
  auto shape = out.Shape();
  for (const sdk::Value& in : n.Inputs())
    if (!in || !in.HasStaticShape() || in.Shape() != shape) return false;
  return true;
}

}  // namespace

OpKind KindOf(const sdk::Node& n) {
  if (!OpLegality(n).empty() || (!n.Domain().empty() && n.Domain() != "ai.onnx")) return OpKind::kOpaque;
  if (SmallInteger(n.Output(0))) return OpKind::kOpaque;
  std::string_view op = n.OpType();
  if (In(kUnary, op)) return OpKind::kElemWise;
  if (In(kBinary, op)) return SameStaticShapes(n) ? OpKind::kElemWise : OpKind::kBroadcast;
  if (In(kInjective, op)) return OpKind::kInjective;
  if (In(kReduce, op)) return OpKind::kCommReduce;
  if (In(kComplex, op)) return OpKind::kOutEWiseFusable;
  return OpKind::kOpaque;
}

std::string_view KindName(OpKind k) {
  switch (k) {
    case OpKind::kElemWise: return "elemwise";
    case OpKind::kBroadcast: return "broadcast";
    case OpKind::kInjective: return "injective";
    case OpKind::kCommReduce: return "reduce";
    case OpKind::kOutEWiseFusable: return "out-elemwise-fusable";
    case OpKind::kOpaque: return "opaque";
  }
  return "opaque";
}

}  // namespace kiln::fusion
