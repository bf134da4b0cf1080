// QuantizeLinear and DequantizeLinear (per tensor, and per axis since opset 13) and DynamicQuantizeLinear. The
// arithmetic (round half to even, saturation, the dynamic range) is quant/quant_math.h; which scale and zero
// point an element uses is quant/quant_params.h. Blocked quantization (opset 21 block_size) and the float8 and
// int4 types are not handled here: those answer "unsupported".
#include <kiln/kiln_plugin_parts.hpp>
#include "quant/quant_math.h"
#include "quant/quant_params.h"

namespace kiln::kernels {
namespace {

using nn::Invalid;

// The axis a scale of more than one value runs along, with the checks both ops share.
quant::AxisParam ResolveAxis(const sdk::KernelContext& ctx, const std::string& op, const sdk::TensorView& x,
                             const sdk::TensorView& scale, const sdk::TensorView& zp) {
  if (ctx.GetInt("block_size", 0) != 0) throw sdk::Unsupported(op + " with block_size");
  if (zp && zp.ElementCount() != scale.ElementCount())
    Invalid(op, "the zero point " + nn::DimsStr(zp.Dims()) + " does not match the scale " + nn::DimsStr(scale.Dims()));
  const int64_t n = scale.ElementCount();
  if (n == 1 && scale.Rank() <= 1) return {};
  if (scale.Rank() != 1) Invalid(op, "the scale must be a scalar or 1-D, got " + nn::DimsStr(scale.Dims()));
  if (ctx.OpsetVersion() < 13) Invalid(op, "per-axis scales need opset 13");
  const int64_t axis = NormalizeAxis(ctx.GetInt("axis", 1), static_cast<int64_t>(x.Rank()));
  return quant::AlongAxis(op, "the scale", x.Dims(), axis, n);
}

void QuantizeLinear(sdk::KernelContext& ctx) {
  const std::string op = "QuantizeLinear";
  sdk::TensorView X = ctx.RequiredInput(0), S = ctx.RequiredInput(1), Z = ctx.Input(2);
  const quant::AxisParam ax = ResolveAxis(ctx, op, X, S, Z);
  const int32_t out_type = Z ? Z.ElemType() : KILN_ELEM_UINT8;
  if (ctx.GetInt("output_dtype", 0) != 0 && ctx.GetInt("output_dtype", 0) != out_type)
    throw sdk::Unsupported("QuantizeLinear output_dtype");
  const std::vector<float> scale = quant::ReadScales(op, S, "y_scale", true);
  const std::vector<int32_t> zp = Z ? quant::ReadZeroPoints(op, Z) : std::vector<int32_t>(scale.size(), 0);
  sdk::MutableTensor Y = ctx.AllocOutput(0, out_type, X.Dims());
  const int64_t count = X.ElementCount();
  Dispatch<TypeList<uint8_t, int8_t>>(out_type, [&]<typename Q>() {
    Q* y = nn::Out<Q>(Y);
    Dispatch<TypeList<float, double, half, bfloat16, int32_t>>(X.ElemType(), [&]<typename T>() {
      const T* x = nn::In<T>(X);
      for (int64_t i = 0; i < count; ++i) {
        const int64_t c = ax.Index(i);
        y[i] = quant::Quantize<Q>(static_cast<float>(static_cast<Compute<T>>(x[i])), scale[c], zp[c]);
      }
    });
  });
}

void DequantizeLinear(sdk::KernelContext& ctx) {
  const std::string op = "DequantizeLinear";
  sdk::TensorView X = ctx.RequiredInput(0), S = ctx.RequiredInput(1), Z = ctx.Input(2);
  if (Z && Z.ElemType() != X.ElemType()) Invalid(op, "the zero point has another element type than x");
  const quant::AxisParam ax = ResolveAxis(ctx, op, X, S, Z);
  const int32_t out_type = S.ElemType();
  const std::vector<int32_t> zp = Z ? quant::ReadZeroPoints(op, Z) : std::vector<int32_t>(S.ElementCount(), 0);
  sdk::MutableTensor Y = ctx.AllocOutput(0, out_type, X.Dims());
  const int64_t count = X.ElementCount();
  Dispatch<kFloatTypes>(out_type, [&]<typename F>() {
    using C = Compute<F>;
    const std::vector<C> scale = nn::ReadAs<C>(S);
    F* y = nn::Out<F>(Y);
    Dispatch<TypeList<uint8_t, int8_t, int32_t>>(X.ElemType(), [&]<typename T>() {
      const T* x = nn::In<T>(X);
      for (int64_t i = 0; i < count; ++i) {
        const int64_t c = ax.Index(i);
        y[i] = static_cast<F>(quant::Dequantize<C>(static_cast<int32_t>(x[i]), zp[c], scale[c]));
      }
    });
  });
}

void DynamicQuantizeLinear(sdk::KernelContext& ctx) {
  sdk::TensorView X = ctx.RequiredInput(0);
  std::span<const float> x = X.Values<float>();
  const quant::DynamicParams p = quant::DynamicQuantParams(x);
  sdk::MutableTensor Y = ctx.AllocOutput(0, KILN_ELEM_UINT8, X.Dims());
  uint8_t* y = Y.MutableValues<uint8_t>().data();
  for (size_t i = 0; i < x.size(); ++i) y[i] = quant::Quantize<uint8_t>(x[i], p.scale, p.zero_point);
  if (ctx.OutputCount() > 1) ctx.AllocOutput(1, KILN_ELEM_FLOAT, Dims{}).MutableValues<float>()[0] = p.scale;
  if (ctx.OutputCount() > 2) ctx.AllocOutput(2, KILN_ELEM_UINT8, Dims{}).MutableValues<uint8_t>()[0] = p.zero_point;
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
