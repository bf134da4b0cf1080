// ConvInteger (int32 result) and QLinearConv (requantized to y_zero_point's type). X and W are widened to int32
// less their zero points (x: one value; w: one value or one per output channel), so the padding im2col inserts
// is the zero point itself, and convolved exactly in int32 (core/nn_conv.h). QLinearConv adds the int32 bias to
// the sum, then requantizes with (x_scale * w_scale[m]) / y_scale per output channel m, rounded half to even and
// saturated (quant/quant_math.h): the order of ONNX Runtime's kernel, so results agree bit for bit.
#include <kiln/kiln_plugin_parts.hpp>
#include "core/nn_conv.h"
#include "quant/quant_params.h"

namespace kiln::kernels {
namespace {

using nn::Invalid;

// The centered int32 convolution of X and W.
std::vector<int32_t> ConvInt(const sdk::KernelContext& ctx, const std::string& op, const sdk::TensorView& X,
                             const sdk::TensorView& W, const sdk::TensorView& XZ, const sdk::TensorView& WZ,
                             nn::ConvShape* shape) {
  nn::ConvShape s = nn::MakeConvShape(ctx, op, X, W);
  const std::vector<int32_t> xzp = quant::ZeroPointsFor(op, "x_zero_point", XZ, 1);
  const std::vector<int32_t> wzp = quant::ZeroPointsFor(op, "w_zero_point", WZ, s.M);
  const int64_t per_channel = W.ElementCount() / std::max<int64_t>(s.M, 1);
  const std::vector<int32_t> x = quant::Centered(X, xzp, [](int64_t) { return 0; });
  const std::vector<int32_t> w = quant::Centered(W, wzp, [per_channel](int64_t i) { return i / per_channel; });
  std::vector<int32_t> y(static_cast<size_t>(NumElements(s.y_dims)));
  nn::ConvForward<int32_t>(x.data(), w.data(), nullptr, s, y.data());
  *shape = s;
  return y;
}

void ConvInteger(sdk::KernelContext& ctx) {
  nn::ConvShape s;
  std::vector<int32_t> y =
      ConvInt(ctx, "ConvInteger", ctx.RequiredInput(0), ctx.RequiredInput(1), ctx.Input(2), ctx.Input(3), &s);
  sdk::MutableTensor Y = ctx.AllocOutput(0, KILN_ELEM_INT32, s.y_dims);
  std::copy(y.begin(), y.end(), Y.MutableValues<int32_t>().begin());
}

void QLinearConv(sdk::KernelContext& ctx) {
  const std::string op = "QLinearConv";
  sdk::TensorView X = ctx.RequiredInput(0), XS = ctx.RequiredInput(1), XZ = ctx.Input(2);
  sdk::TensorView W = ctx.RequiredInput(3), WS = ctx.RequiredInput(4), WZ = ctx.Input(5);
  sdk::TensorView YS = ctx.RequiredInput(6), YZ = ctx.Input(7), B = ctx.Input(8);
  nn::ConvShape s;
  std::vector<int32_t> acc = ConvInt(ctx, op, X, W, XZ, WZ, &s);
  const int64_t out_size = NumElements(s.win.out);
  if (B) {
    if (B.ElemType() != KILN_ELEM_INT32 || B.ElementCount() != s.M) Invalid(op, "B must be int32 [M]");
    std::span<const int32_t> b = B.Values<int32_t>();
    for (size_t i = 0; i < acc.size(); ++i) acc[i] += b[(static_cast<int64_t>(i) / out_size) % s.M];
  }
  const std::vector<float> xs = quant::ReadScales(op, XS, "x_scale", false);
  const std::vector<float> ws = quant::ReadScales(op, WS, "w_scale", false);
  const std::vector<float> ys = quant::ReadScales(op, YS, "y_scale", true);
  if (xs.size() != 1) Invalid(op, "x_scale must be a single value");
  if (ys.size() != 1) Invalid(op, "y_scale must be a single value");
  if (ws.size() != 1 && static_cast<int64_t>(ws.size()) != s.M)
    Invalid(op, "w_scale has " + std::to_string(ws.size()) + " values, expected 1 or " + std::to_string(s.M));
  std::vector<float> mult(ws.size());
  for (size_t m = 0; m < ws.size(); ++m) mult[m] = quant::RequantMultiplier(xs[0], ws[m], ys[0]);
  quant::WriteRequantized(ctx, op, acc, s.y_dims, YZ, [&](int64_t i) {
    return mult.size() == 1 ? mult[0] : mult[static_cast<size_t>((i / out_size) % s.M)];
  });
}

}  // namespace
}  // namespace kiln::kernels

KILN_PLUGIN_PART(QLinearConv) {
  using namespace kiln::kernels;
  const std::vector<int32_t> q8 = {KILN_ELEM_UINT8, KILN_ELEM_INT8};
  reg.AddKernelFn({.op_type = "ConvInteger", .since_version = 10, .elem_types = q8}, ConvInteger);
  reg.AddKernelFn({.op_type = "QLinearConv", .since_version = 10, .elem_types = q8}, QLinearConv);
}
