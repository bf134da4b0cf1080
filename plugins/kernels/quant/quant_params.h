// Where a quantization parameter (a scale or a zero point) applies: to the whole tensor, or one value per index
// along an axis (QuantizeLinear/DequantizeLinear `axis`, ConvInteger/QLinearConv per output channel), or per row
// or per column of a stack of matrices (MatMulInteger, QLinearMatMul). Reading those tensors, checking their
// sizes against the operand with one clear message, and the index of the value each element uses.
#pragma once

#include "core/nn_util.h"
#include "quant/quant_math.h"

#include <string>
#include <vector>

namespace kiln::kernels::quant {

using nn::DimsStr;
using nn::Invalid;

// The values of a zero-point tensor (uint8, int8 or int32) as int32; an absent tensor reads as {0}.
inline std::vector<int32_t> ReadZeroPoints(const std::string& op, const sdk::TensorView& z) {
  if (!z) return {0};
  std::vector<int32_t> v;
  Dispatch<TypeList<uint8_t, int8_t, int32_t>>(z.ElemType(), [&]<typename Q>() {
    const Q* p = nn::In<Q>(z);
    v.assign(p, p + z.ElementCount());
  });
  if (v.empty()) Invalid(op, "an empty zero point");
  return v;
}

// The values of a scale tensor as float. A scale that divides (QuantizeLinear's, an output's) must not be zero.
inline std::vector<float> ReadScales(const std::string& op, const sdk::TensorView& s, const char* what,
                                     bool divides) {
  std::vector<float> v = nn::ReadAs<float>(s);
  if (v.empty()) Invalid(op, std::string(what) + " is empty");
  if (divides)
    for (float f : v)
      if (f == 0.0f) Invalid(op, std::string(what) + " is zero");
  return v;
}

// One value for the tensor (count 1) or one per index along an axis: element i uses value (i / inner) % count.
struct AxisParam {
  int64_t count = 1;
  int64_t inner = 1;
  int64_t Index(int64_t i) const { return count == 1 ? 0 : (i / inner) % count; }
};

// A parameter of `n` values over a tensor of `dims`: per tensor when n is 1, else one per index of `axis`.
inline AxisParam AlongAxis(const std::string& op, const char* what, std::span<const int64_t> dims, int64_t axis,
                           int64_t n) {
  AxisParam a;
  if (n == 1) return a;
  if (axis < 0 || axis >= static_cast<int64_t>(dims.size()) || dims[axis] != n)
    Invalid(op, std::string(what) + " has " + std::to_string(n) + " values; the tensor " + DimsStr(dims) +
                    " has " + (axis >= 0 && axis < static_cast<int64_t>(dims.size())
                                   ? std::to_string(dims[axis])
                                   : std::string("no")) +
                    " along axis " + std::to_string(axis));
  a.count = n;
  for (size_t i = static_cast<size_t>(axis) + 1; i < dims.size(); ++i) a.inner *= dims[i];
  return a;
}

// A parameter of a stack of matrices [..., R, C]: per tensor, per row (shape [R], or [..., R, 1] with the
// stack's batch dims: one set per matrix) or per column ([C] or [..., 1, C]). `rows` says which of the two the
// operand allows (a: rows, b: columns).
struct MatrixParam {
  int64_t per = 1;       // values per matrix: 1, R or C
  bool batched = false;  // a set of `per` values for each matrix of the stack
  int64_t Index(int64_t matrix, int64_t k) const { return per == 1 ? 0 : (batched ? matrix * per : 0) + k; }
};

inline MatrixParam ResolveMatrixParam(const std::string& op, const char* what, const sdk::TensorView& t,
                                      std::span<const int64_t> dims, bool rows) {
  MatrixParam p;
  if (!t || t.ElementCount() == 1) return p;
  const size_t r = dims.size();
  const int64_t len = rows ? dims[r - 2] : dims[r - 1];
  std::span<const int64_t> td = t.Dims();
  p.per = len;
  if (td.size() == 1 && td[0] == len) return p;
  bool ok = td.size() == r && r >= 2;
  for (size_t i = 0; ok && i + 2 < r; ++i) ok = td[i] == dims[i];
  if (ok) ok = rows ? (td[r - 2] == len && td[r - 1] == 1) : (td[r - 2] == 1 && td[r - 1] == len);
  if (!ok)
    Invalid(op, std::string(what) + " " + DimsStr(td) + " is neither one value nor one per " +
                    (rows ? "row" : "column") + " of " + DimsStr(dims));
  p.batched = true;
  return p;
}

// An 8-bit tensor widened to int32 less its zero points: element i less zp[index_of(i)]. The integer products
// run on these exactly (int32 accumulation, as ONNX specifies).
template <typename IndexOf>
std::vector<int32_t> Centered(const sdk::TensorView& t, const std::vector<int32_t>& zp, IndexOf index_of) {
  std::vector<int32_t> out(static_cast<size_t>(t.ElementCount()));
  Dispatch<TypeList<uint8_t, int8_t>>(t.ElemType(), [&]<typename Q>() {
    const Q* p = nn::In<Q>(t);
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = static_cast<int32_t>(p[i]) - zp[static_cast<size_t>(index_of(static_cast<int64_t>(i)))];
  });
  return out;
}

// A zero-point tensor that must hold `count` values (or 1, repeated), checked against the parameter it
// belongs to.
inline std::vector<int32_t> ZeroPointsFor(const std::string& op, const char* what, const sdk::TensorView& z,
                                          int64_t count) {
  std::vector<int32_t> v = ReadZeroPoints(op, z);
  if (v.size() == 1) return std::vector<int32_t>(static_cast<size_t>(count), v[0]);
  if (static_cast<int64_t>(v.size()) != count)
    Invalid(op, std::string(what) + " has " + std::to_string(v.size()) + " values, expected 1 or " +
                    std::to_string(count));
  return v;
}

// Output 0 of y_zero_point's type (uint8 when it is absent) from int32 accumulators: y[i] =
// Requantize(acc[i], multiplier_of(i), y_zero_point). y_scale and y_zero_point are one value each.
template <typename MultiplierOf>
void WriteRequantized(sdk::KernelContext& ctx, const std::string& op, const std::vector<int32_t>& acc,
                      const Dims& dims, const sdk::TensorView& YZ, MultiplierOf multiplier_of) {
  if (YZ && YZ.ElementCount() != 1) Invalid(op, "y_zero_point must be a single value");
  const int32_t out_type = YZ ? YZ.ElemType() : KILN_ELEM_UINT8;
  const int32_t zp = ReadZeroPoints(op, YZ)[0];
  sdk::MutableTensor Y = ctx.AllocOutput(0, out_type, dims);
  Dispatch<TypeList<uint8_t, int8_t>>(out_type, [&]<typename Q>() {
    Q* y = nn::Out<Q>(Y);
    for (size_t i = 0; i < acc.size(); ++i)
      y[i] = Requantize<Q>(acc[i], multiplier_of(static_cast<int64_t>(i)), zp);
  });
}

}  // namespace kiln::kernels::quant
