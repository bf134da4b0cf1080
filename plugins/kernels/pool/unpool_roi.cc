// MaxUnpool (scatters X into zeros at MaxPool's flat Indices; output_shape input optional) and MaxRoiPool
// (Caffe-style max pooling of each region of interest into a fixed pooled_shape).
#include <kiln/kiln_plugin_parts.hpp>
#include "core/nn_util.h"

#include <limits>

namespace kiln::kernels {
namespace {

using nn::Invalid;

void MaxUnpool(sdk::KernelContext& ctx) {
  const std::string op = "MaxUnpool";
  sdk::TensorView X = ctx.RequiredInput(0), I = ctx.RequiredInput(1), S = ctx.Input(2);
  std::span<const int64_t> xd = X.Dims();
  if (xd.size() < 3) Invalid(op, "X must have rank >= 3, got " + nn::DimsStr(xd));
  if (I.ElemType() != KILN_ELEM_INT64) Invalid(op, "I must be int64");
  if (I.ElementCount() != X.ElementCount()) Invalid(op, "I " + nn::DimsStr(I.Dims()) + " does not match X");
  const size_t n = xd.size() - 2;
  Dims kernel = ctx.GetInts("kernel_shape"), strides = ctx.GetInts("strides", Dims(n, 1));
  Dims pads = ctx.GetInts("pads", Dims(2 * n, 0));
  if (strides.empty()) strides.assign(n, 1);
  if (pads.empty()) pads.assign(2 * n, 0);
  if (kernel.size() != n || strides.size() != n || pads.size() != 2 * n)
    Invalid(op, "kernel_shape, strides or pads do not match X's spatial rank");
  // Indices are flat positions in the default unpooled shape; with output_shape they keep their coordinates.
  Dims dd = {xd[0], xd[1]};
  for (size_t i = 0; i < n; ++i) dd.push_back((xd[i + 2] - 1) * strides[i] - pads[i] - pads[i + n] + kernel[i]);
  Dims yd = dd;
  if (S && S.ElementCount() > 0) {
    std::span<const int64_t> s = S.Values<int64_t>();
    if (s.size() != xd.size()) Invalid(op, "output_shape must have X's rank");
    yd.assign(s.begin(), s.end());
  }
  sdk::MutableTensor Y = ctx.AllocOutput(0, X.ElemType(), yd);
  const int64_t total = NumElements(yd), default_total = NumElements(dd);
  std::vector<int64_t> where(static_cast<size_t>(X.ElementCount()));
  std::span<const int64_t> idx = I.Values<int64_t>();
  for (size_t i = 0; i < where.size(); ++i) {
    int64_t v = idx[i];
    if (v < 0 || v >= default_total) Invalid(op, "index " + std::to_string(v) + " is out of range");
    if (yd != dd) {  // re-flatten the coordinates in the output shape
      int64_t out = 0, stride = 1;
      for (size_t k = dd.size(); k-- > 0;) {
        const int64_t c = v % dd[k];
        v /= dd[k];
        if (c >= yd[k]) Invalid(op, "index " + std::to_string(idx[i]) + " falls outside output_shape");
        out += c * stride;
        stride *= yd[k];
      }
      v = out;
    }
    where[i] = v;
  }
  Dispatch<kNumericTypes>(X.ElemType(), [&]<typename T>() {
    const T* x = nn::In<T>(X);
    T* y = nn::Out<T>(Y);
    std::fill(y, y + total, T(0));
    for (size_t i = 0; i < where.size(); ++i) y[where[i]] = x[i];
  });
}

void MaxRoiPool(sdk::KernelContext& ctx) {
  const std::string op = "MaxRoiPool";
  sdk::TensorView X = ctx.RequiredInput(0), R = ctx.RequiredInput(1);
  std::span<const int64_t> xd = X.Dims();
  if (xd.size() != 4) Invalid(op, "X must be 4-D, got " + nn::DimsStr(xd));
  if (R.Rank() != 2 || R.Dims()[1] != 5) Invalid(op, "rois must be [num_rois, 5], got " + nn::DimsStr(R.Dims()));
  if (R.ElemType() != X.ElemType()) Invalid(op, "rois has another element type than X");
  Dims pooled = ctx.GetInts("pooled_shape");
  if (pooled.size() != 2 || pooled[0] < 1 || pooled[1] < 1) Invalid(op, "pooled_shape must be two positive ints");
  const float scale = ctx.GetFloat("spatial_scale", 1.0f);
  const int64_t N = xd[0], C = xd[1], H = xd[2], W = xd[3], num = R.Dims()[0], PH = pooled[0], PW = pooled[1];
  sdk::MutableTensor Y = ctx.AllocOutput(0, X.ElemType(), Dims{num, C, PH, PW});
  Dispatch<kFloatTypes>(X.ElemType(), [&]<typename T>() {
    using Cm = Compute<T>;
    const T* x = nn::In<T>(X);
    const T* rois = nn::In<T>(R);
    T* y = nn::Out<T>(Y);
    for (int64_t r = 0; r < num; ++r) {
      const T* roi = rois + r * 5;
      const int64_t b = static_cast<int64_t>(static_cast<Cm>(roi[0]));
      if (b < 0 || b >= N) Invalid(op, "roi batch index " + std::to_string(b) + " is out of range");
      auto at = [&](int k) { return static_cast<int64_t>(std::round(static_cast<float>(static_cast<Cm>(roi[k])) * scale)); };
      const int64_t x1 = at(1), y1 = at(2), x2 = at(3), y2 = at(4);
      const int64_t rh = std::max<int64_t>(y2 - y1 + 1, 1), rw = std::max<int64_t>(x2 - x1 + 1, 1);
      const double bh = static_cast<double>(rh) / static_cast<double>(PH);
      const double bw = static_cast<double>(rw) / static_cast<double>(PW);
      for (int64_t c = 0; c < C; ++c) {
        const T* plane = x + (b * C + c) * H * W;
        T* out = y + ((r * C + c) * PH) * PW;
        for (int64_t ph = 0; ph < PH; ++ph)
          for (int64_t pw = 0; pw < PW; ++pw) {
            int64_t hs = static_cast<int64_t>(std::floor(ph * bh)) + y1;
            int64_t he = static_cast<int64_t>(std::ceil((ph + 1) * bh)) + y1;
            int64_t ws = static_cast<int64_t>(std::floor(pw * bw)) + x1;
            int64_t we = static_cast<int64_t>(std::ceil((pw + 1) * bw)) + x1;
            hs = std::clamp<int64_t>(hs, 0, H), he = std::clamp<int64_t>(he, 0, H);
            ws = std::clamp<int64_t>(ws, 0, W), we = std::clamp<int64_t>(we, 0, W);
            Cm best = (he <= hs || we <= ws) ? Cm(0) : std::numeric_limits<Cm>::lowest();
            for (int64_t h = hs; h < he; ++h)
              for (int64_t w = ws; w < we; ++w) best = std::max(best, static_cast<Cm>(plane[h * W + w]));
            out[ph * PW + pw] = static_cast<T>(best);
          }
      }
    }
  });
}

}  // namespace
}  // namespace kiln::kernels

KILN_PLUGIN_PART(UnpoolRoi) {
  using namespace kiln::kernels;
  reg.AddKernelFn({.op_type = "MaxUnpool", .since_version = 9}, MaxUnpool);
  reg.AddKernelFn({.op_type = "MaxRoiPool",
                   .since_version = 1,
                   .elem_types = {KILN_ELEM_FLOAT, KILN_ELEM_DOUBLE, KILN_ELEM_FLOAT16, KILN_ELEM_BFLOAT16}},
                  MaxRoiPool);
}
