// Conv (1-D/2-D/3-D, group, dilations, strides, pads, auto_pad) as im2col + Eigen GEMM, and ConvTranspose
// (output_padding, output_shape, auto_pad) as one GEMM per image and group followed by col2im.
// float16 is widened to float.
#include <kiln/kiln_plugin_parts.hpp>
#include "core/nn_conv.h"

namespace kiln::kernels {
namespace {

using nn::Invalid;

// Runs fn(x, w, b, y) on compute-type buffers; T == C uses the tensors' own memory.
template <typename T, typename Fn>
void WithComputeBuffers(const sdk::TensorView& X, const sdk::TensorView& W, const sdk::TensorView& B,
                        const sdk::MutableTensor& Y, Fn&& fn) {
  using C = Compute<T>;
  if constexpr (std::is_same_v<T, C>) {
    fn(nn::In<T>(X), nn::In<T>(W), B ? nn::In<T>(B) : nullptr, nn::Out<T>(Y));
  } else {
    std::vector<C> x = nn::Widen(nn::In<T>(X), X.ElementCount()), w = nn::Widen(nn::In<T>(W), W.ElementCount());
    std::vector<C> b = B ? nn::Widen(nn::In<T>(B), B.ElementCount()) : std::vector<C>();
    std::vector<C> y(static_cast<size_t>(Y.ElementCount()));
    fn(x.data(), w.data(), B ? b.data() : nullptr, y.data());
    nn::Convert(y.data(), nn::Out<T>(Y), Y.ElementCount());
  }
}

void CheckBias(const std::string& op, const sdk::TensorView& B, int64_t channels, int32_t elem) {
  if (!B) return;
  if (B.ElemType() != elem) Invalid(op, "B has another element type than X");
  if (B.Rank() != 1 || B.Dims()[0] != channels)
    Invalid(op, "B " + nn::DimsStr(B.Dims()) + " must be [" + std::to_string(channels) + "]");
}

void Conv(sdk::KernelContext& ctx) {
  sdk::TensorView X = ctx.RequiredInput(0), W = ctx.RequiredInput(1), B = ctx.Input(2);
  if (W.ElemType() != X.ElemType()) Invalid("Conv", "W has another element type than X");
  nn::ConvShape s = nn::MakeConvShape(ctx, "Conv", X, W);
  CheckBias("Conv", B, s.M, X.ElemType());
  sdk::MutableTensor Y = ctx.AllocOutput(0, X.ElemType(), s.y_dims);
  Dispatch<kFloatTypes>(X.ElemType(), [&]<typename T>() {
    using C = Compute<T>;
    WithComputeBuffers<T>(X, W, B, Y, [&](const C* x, const C* w, const C* b, C* y) {
      nn::ConvForward<C>(x, w, b, s, y);
    });
  });
}

void ConvTranspose(sdk::KernelContext& ctx) {
  const std::string op = "ConvTranspose";
  sdk::TensorView X = ctx.RequiredInput(0), W = ctx.RequiredInput(1), B = ctx.Input(2);
  if (W.ElemType() != X.ElemType()) Invalid(op, "W has another element type than X");
  std::span<const int64_t> xd = X.Dims(), wd = W.Dims();
  if (xd.size() < 3 || wd.size() != xd.size())
    Invalid(op, "X " + nn::DimsStr(xd) + " and W " + nn::DimsStr(wd) + " must have the same rank >= 3");
  const size_t n = xd.size() - 2;
  const int64_t N = xd[0], Cin = xd[1], group = ctx.GetInt("group", 1);
  if (group < 1 || Cin % group != 0 || wd[0] != Cin)
    Invalid(op, "W " + nn::DimsStr(wd) + " does not fit X " + nn::DimsStr(xd) + " with group " + std::to_string(group));
  const int64_t cin_g = Cin / group, cout_g = wd[1], Cout = cout_g * group;
  CheckBias(op, B, Cout, X.ElemType());

  nn::Window win;  // in = Y's spatial dims, out = X's (the adjoint of Conv's geometry)
  win.kernel = ctx.GetInts("kernel_shape", Dims(wd.begin() + 2, wd.end()));
  win.strides = ctx.GetInts("strides", Dims(n, 1));
  win.dilations = ctx.GetInts("dilations", Dims(n, 1));
  Dims out_pad = ctx.GetInts("output_padding", Dims(n, 0));
  Dims out_shape = ctx.GetInts("output_shape");
  win.pads = ctx.GetInts("pads", Dims(2 * n, 0));
  if (win.strides.empty()) win.strides.assign(n, 1);
  if (win.dilations.empty()) win.dilations.assign(n, 1);
  if (out_pad.empty()) out_pad.assign(n, 0);
  if (win.pads.empty()) win.pads.assign(2 * n, 0);
  if (out_shape.size() == n + 2) out_shape.erase(out_shape.begin(), out_shape.begin() + 2);
  if (win.kernel.size() != n || win.strides.size() != n || win.dilations.size() != n || out_pad.size() != n ||
      win.pads.size() != 2 * n || (!out_shape.empty() && out_shape.size() != n))
    Invalid(op, "kernel_shape, strides, dilations, pads, output_padding or output_shape do not match the rank");
  const std::string auto_pad = ctx.GetString("auto_pad", "NOTSET");
  win.out.assign(xd.begin() + 2, xd.end());
  win.in.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const int64_t full = win.strides[i] * (win.out[i] - 1) + out_pad[i] + (win.kernel[i] - 1) * win.dilations[i] + 1;
    int64_t target = -1;
    if (!out_shape.empty()) target = out_shape[i];
    else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") target = win.out[i] * win.strides[i];
    if (target >= 0) {
      // As ONNX's reference: floor division, so a negative total (output_shape past the full result) leaves the
      // extra rows at the end.
      const int64_t total = full - target, half_floor = total >= 0 ? total / 2 : -((-total + 1) / 2);
      win.pads[i] = auto_pad == "SAME_UPPER" ? half_floor : total - half_floor;
      win.pads[i + n] = total - win.pads[i];
      win.in[i] = target;
    } else {
      if (auto_pad == "VALID") win.pads[i] = win.pads[i + n] = 0;
      win.in[i] = full - win.pads[i] - win.pads[i + n];
    }
    if (win.in[i] < 0) Invalid(op, "the output would have a negative size");
  }
  Dims yd = {N, Cout};
  yd.insert(yd.end(), win.in.begin(), win.in.end());
  sdk::MutableTensor Y = ctx.AllocOutput(0, X.ElemType(), yd);
  const int64_t in_size = NumElements(win.out), out_size = NumElements(win.in), k_size = NumElements(win.kernel);
  Dispatch<kFloatTypes>(X.ElemType(), [&]<typename T>() {
    using C = Compute<T>;
    WithComputeBuffers<T>(X, W, B, Y, [&](const C* x, const C* w, const C* b, C* y) {
      std::fill(y, y + N * Cout * out_size, C(0));
      std::vector<C> col(static_cast<size_t>(cout_g * k_size * in_size));
      for (int64_t img = 0; img < N; ++img)
        for (int64_t g = 0; g < group; ++g) {
          // col [cout_g*k, in] = W_g^T [cout_g*k, cin_g] x X_g [cin_g, in]
          nn::Gemm<C>(true, false, cout_g * k_size, in_size, cin_g, C(1), w + g * cin_g * cout_g * k_size,
                      x + (img * Cin + g * cin_g) * in_size, C(0), col.data());
          nn::Col2ImAdd(col.data(), cout_g, win, y + (img * Cout + g * cout_g) * out_size);
        }
      if (b)
        for (int64_t img = 0; img < N; ++img)
          for (int64_t m = 0; m < Cout; ++m) {
            C* p = y + (img * Cout + m) * out_size;
            for (int64_t i = 0; i < out_size; ++i) p[i] += b[m];
          }
    });
  });
}

std::vector<int32_t> ConvTypes() { return {KILN_ELEM_FLOAT, KILN_ELEM_DOUBLE, KILN_ELEM_FLOAT16, KILN_ELEM_BFLOAT16}; }

}  // namespace
}  // namespace kiln::kernels

KILN_PLUGIN_PART(Conv) {
  using namespace kiln::kernels;
  reg.AddKernelFn({.op_type = "Conv", .since_version = 1, .elem_types = ConvTypes()}, Conv);
  reg.AddKernelFn({.op_type = "ConvTranspose", .since_version = 1, .elem_types = ConvTypes()}, ConvTranspose);
}
