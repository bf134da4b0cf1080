// The convolution core shared by conv/ (Conv, ConvTranspose) and quant/ (ConvInteger, QLinearConv): shape
// checks and the forward convolution as im2col per image and group followed by one Eigen GEMM (a pointwise
// convolution skips im2col and multiplies the input directly).
#pragma once

#include "core/nn_util.h"

namespace kiln::kernels::nn {

struct ConvShape {
  int64_t N = 0, C = 0, M = 0, group = 1;
  Window win;
  Dims y_dims;
};

// Checks X [N, C, in...] and W [M, C/group, k...] and reads the geometry attributes.
inline ConvShape MakeConvShape(const sdk::KernelContext& ctx, const std::string& op, const sdk::TensorView& X,
                               const sdk::TensorView& W) {
  std::span<const int64_t> xd = X.Dims(), wd = W.Dims();
  if (xd.size() < 3) Invalid(op, "X must have rank >= 3, got " + DimsStr(xd));
  if (wd.size() != xd.size()) Invalid(op, "W " + DimsStr(wd) + " and X " + DimsStr(xd) + " differ in rank");
  ConvShape s;
  s.N = xd[0];
  s.C = xd[1];
  s.M = wd[0];
  s.group = ctx.GetInt("group", 1);
  if (s.group < 1 || s.C % s.group != 0 || s.M % s.group != 0)
    Invalid(op, "group " + std::to_string(s.group) + " does not divide the channels");
  if (wd[1] * s.group != s.C)
    Invalid(op, "W " + DimsStr(wd) + " expects " + std::to_string(wd[1] * s.group) + " input channels, X has " +
                    std::to_string(s.C));
  s.win = MakeWindow(ctx, op, xd.subspan(2), Dims(wd.begin() + 2, wd.end()));
  s.y_dims = {s.N, s.M};
  s.y_dims.insert(s.y_dims.end(), s.win.out.begin(), s.win.out.end());
  return s;
}

// y [N, M, out...] = conv(x, w) (+ bias[M] when given). x_pad is the value im2col puts in the padding.
template <typename C>
void ConvForward(const C* x, const C* w, const C* bias, const ConvShape& s, C* y, C x_pad = C(0)) {
  const Window& win = s.win;
  const int64_t in_size = NumElements(win.in), out_size = NumElements(win.out), k_size = NumElements(win.kernel);
  const int64_t cg = s.C / s.group, mg = s.M / s.group, kdim = cg * k_size;
  bool pointwise = true;
  for (size_t i = 0; i < win.rank(); ++i)
    pointwise &= win.kernel[i] == 1 && win.strides[i] == 1 && win.pads[i] == 0 && win.pads[i + win.rank()] == 0;
  std::vector<C> col(pointwise ? 0 : static_cast<size_t>(kdim * out_size));
  for (int64_t n = 0; n < s.N; ++n)
    for (int64_t g = 0; g < s.group; ++g) {
      const C* xg = x + (n * s.C + g * cg) * in_size;
      if (!pointwise) Im2Col(xg, cg, win, col.data(), x_pad);
      C* yg = y + (n * s.M + g * mg) * out_size;
      Gemm<C>(false, false, mg, out_size, kdim, C(1), w + g * mg * kdim, pointwise ? xg : col.data(), C(0), yg);
    }
  if (bias)
    for (int64_t n = 0; n < s.N; ++n)
      for (int64_t m = 0; m < s.M; ++m) {
        C* p = y + (n * s.M + m) * out_size;
        const C b = bias[m];
        for (int64_t i = 0; i < out_size; ++i) p[i] += b;
      }
}

}  // namespace kiln::kernels::nn
