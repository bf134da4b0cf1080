// QuantizeLinear and DequantizeLinear (per-tensor, and per-axis since opset 13) and DynamicQuantizeLinear.
// Rounding is half-to-even (std::nearbyint in the default mode), then saturation to the output integer type.
#include <kiln/kiln_plugin_parts.hpp>
#include "core/nn_util.h"

namespace kiln::kernels {
namespace {

using nn::Invalid;

// How a scale/zero-point tensor applies to x: one value, or one per slice along `axis`.
struct Axis {
  int64_t count = 1;  // values in the scale (1 = per tensor)
  int64_t inner = 1;  // elements per step along the axis
};

Axis ResolveAxis(const sdk::KernelContext& ctx, const std::string& op, const sdk::TensorView& x,
                 const sdk::TensorView& scale) {
  Axis a;
  const int64_t n = scale.ElementCount();
  if (n == 1 && scale.Rank() <= 1) return a;
  if (scale.Rank() != 1) Invalid(op, "the scale must be a scalar or 1-D, got " + nn::DimsStr(scale.Dims()));
  if (ctx.OpsetVersion() < 13) Invalid(op, "per-axis scales need opset 13");
  const int64_t axis = NormalizeAxis(ctx.GetInt("axis", 1), static_cast<int64_t>(x.Rank()));
  if (x.Dims()[axis] != n)
    Invalid(op, "the scale has " + std::to_string(n) + " values, axis " + std::to_string(axis) + " of x has " +
                    std::to_string(x.Dims()[axis]));
  a.count = n;
  for (size_t i = axis + 1; i < x.Rank(); ++i) a.inner *= x.Dims()[i];
  return a;
}

void CheckZeroPoint(const std::string& op, const sdk::TensorView& zp, const sdk::TensorView& scale) {
  if (zp && zp.ElementCount() != scale.ElementCount())
    Invalid(op, "the zero point " + nn::DimsStr(zp.Dims()) + " does not match the scale " + nn::DimsStr(scale.Dims()));
}

void QuantizeLinear(sdk::KernelContext& ctx) {
  const std::string op = "QuantizeLinear";
  sdk::TensorView X = ctx.RequiredInput(0), S = ctx.RequiredInput(1), Z = ctx.Input(2);
  CheckZeroPoint(op, Z, S);
  const Axis ax = ResolveAxis(ctx, op, X, S);
  const int32_t out_type = Z ? Z.ElemType() : KILN_ELEM_UINT8;
  std::vector<float> scale = nn::ReadAs<float>(S);
  sdk::MutableTensor Y = ctx.AllocOutput(0, out_type, X.Dims());
  const int64_t count = X.ElementCount();
  Dispatch<TypeList<uint8_t, int8_t>>(out_type, [&]<typename Q>() {
    std::vector<float> zp = Z ? nn::ReadAs<float>(Z) : std::vector<float>(scale.size(), 0.0f);
    Q* y = nn::Out<Q>(Y);
    Dispatch<TypeList<float, double, half, bfloat16, int32_t>>(X.ElemType(), [&]<typename T>() {
      const T* x = nn::In<T>(X);
      for (int64_t i = 0; i < count; ++i) {
        const int64_t c = ax.count == 1 ? 0 : (i / ax.inner) % ax.count;
        if (scale[c] == 0.0f) Invalid(op, "the scale is zero");
        const float v = static_cast<float>(static_cast<Compute<T>>(x[i])) / scale[c];
        y[i] = nn::SaturateRound<Q>(std::nearbyint(v) + zp[c]);
      }
    });
  });
}

void DequantizeLinear(sdk::KernelContext& ctx) {
  const std::string op = "DequantizeLinear";
  sdk::TensorView X = ctx.RequiredInput(0), S = ctx.RequiredInput(1), Z = ctx.Input(2);
  CheckZeroPoint(op, Z, S);
  if (Z && Z.ElemType() != X.ElemType()) Invalid(op, "the zero point has another element type than x");
  const Axis ax = ResolveAxis(ctx, op, X, S);
  const int32_t out_type = S.ElemType();
  sdk::MutableTensor Y = ctx.AllocOutput(0, out_type, X.Dims());
  const int64_t count = X.ElementCount();
  Dispatch<kFloatTypes>(out_type, [&]<typename F>() {
    using C = Compute<F>;
    std::vector<C> scale = nn::ReadAs<C>(S);
    F* y = nn::Out<F>(Y);
    Dispatch<TypeList<uint8_t, int8_t, int32_t>>(X.ElemType(), [&]<typename T>() {
      const T* x = nn::In<T>(X);
      std::vector<int64_t> zp(scale.size(), 0);
      if (Z)
        for (size_t i = 0; i < zp.size(); ++i) zp[i] = static_cast<int64_t>(nn::In<T>(Z)[i]);
      for (int64_t i = 0; i < count; ++i) {
        const int64_t c = ax.count == 1 ? 0 : (i / ax.inner) % ax.count;
        y[i] = static_cast<F>(static_cast<C>(static_cast<int64_t>(x[i]) - zp[c]) * scale[c]);
      }
    });
  });
}

void DynamicQuantizeLinear(sdk::KernelContext& ctx) {
  sdk::TensorView X = ctx.RequiredInput(0);
  const int64_t count = X.ElementCount();
  std::vector<float> x = nn::ReadAs<float>(X);
  float lo = 0.0f, hi = 0.0f;
  for (float v : x) lo = std::min(lo, v), hi = std::max(hi, v);
  const float scale = (hi - lo) / 255.0f;
  const uint8_t zp = scale == 0.0f ? 0 : nn::SaturateRound<uint8_t>(0.0f - lo / scale);
  sdk::MutableTensor Y = ctx.AllocOutput(0, KILN_ELEM_UINT8, X.Dims());
  uint8_t* y = Y.MutableValues<uint8_t>().data();
  for (int64_t i = 0; i < count; ++i)
    y[i] = scale == 0.0f ? zp : nn::SaturateRound<uint8_t>(std::nearbyint(x[i] / scale) + static_cast<float>(zp));
  if (ctx.OutputCount() > 1) ctx.AllocOutput(1, KILN_ELEM_FLOAT, Dims{}).MutableValues<float>()[0] = scale;
  if (ctx.OutputCount() > 2) ctx.AllocOutput(2, KILN_ELEM_UINT8, Dims{}).MutableValues<uint8_t>()[0] = zp;
}

}  // namespace
}  // namespace kiln::kernels

KILN_PLUGIN_PART(Quantize) {
  using namespace kiln::kernels;
  reg.AddKernelFn({.op_type = "QuantizeLinear", .since_version = 10}, QuantizeLinear);
  reg.AddKernelFn({.op_type = "DequantizeLinear", .since_version = 10}, DequantizeLinear);
  reg.AddKernelFn({.op_type = "DynamicQuantizeLinear", .since_version = 11, .elem_types = {KILN_ELEM_FLOAT}},
                  DynamicQuantizeLinear);
}
