// RoiAlign (opset 10, 16+): for each roi (x1, y1, x2, y2 scaled by spatial_scale) and channel, a grid of
// sampling_ratio (or adaptive) bilinear samples per output bin, averaged (mode avg) or maxed (mode max, ONNX
// Runtime's per-corner maximum). coordinate_transformation_mode half_pixel shifts by -0.5 (opset 16 default);
// output_half_pixel (and opset 10) does not and makes the roi at least 1x1.
#include "core/elem_types.h"
#include <kiln/kiln_plugin_parts.hpp>
#include "core/seq_util.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace kiln::kernels {
namespace {

using seq::Invalid;

struct Sample {
  int64_t p1, p2, p3, p4;  // offsets of the four neighbours
  double w1, w2, w3, w4;
};

// The bilinear sample at (y, x) of an h x w plane; all-zero weights when outside by more than one pixel.
Sample MakeSample(double y, double x, int64_t h, int64_t w) {
  if (y < -1.0 || y > static_cast<double>(h) || x < -1.0 || x > static_cast<double>(w)) return {0, 0, 0, 0, 0, 0, 0, 0};
  y = std::max(y, 0.0);
  x = std::max(x, 0.0);
  int64_t yl = static_cast<int64_t>(y), xl = static_cast<int64_t>(x), yh, xh;
  if (yl >= h - 1) {
    yh = yl = h - 1;
    y = static_cast<double>(yl);
  } else {
    yh = yl + 1;
  }
  if (xl >= w - 1) {
    xh = xl = w - 1;
    x = static_cast<double>(xl);
  } else {
    xh = xl + 1;
  }
  const double ly = y - static_cast<double>(yl), lx = x - static_cast<double>(xl), hy = 1 - ly, hx = 1 - lx;
  return {yl * w + xl, yl * w + xh, yh * w + xl, yh * w + xh, hy * hx, hy * lx, ly * hx, ly * lx};
}

void RoiAlign(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0), rois_t = ctx.RequiredInput(1), idx_t = ctx.RequiredInput(2);
  if (x.Rank() != 4) Invalid("RoiAlign: X must be [N, C, H, W]");
  if (rois_t.Rank() != 2 || rois_t.Dims()[1] != 4) Invalid("RoiAlign: rois must be [num_rois, 4]");
  const int64_t N = x.Dims()[0], C = x.Dims()[1], H = x.Dims()[2], W = x.Dims()[3];
  const int64_t R = rois_t.Dims()[0];
  if (idx_t.ElementCount() != R) Invalid("RoiAlign: batch_indices must have num_rois elements");
  const std::vector<double> rois = seq::ReadAs<double>(rois_t);
  const std::vector<int64_t> bidx = seq::ReadInts(idx_t);
  const int64_t oh = ctx.GetInt("output_height", 1), ow = ctx.GetInt("output_width", 1);
  const int64_t sampling = ctx.GetInt("sampling_ratio", 0);
  const double scale = ctx.GetFloat("spatial_scale", 1.0f);
  const std::string mode = ctx.GetString("mode", "avg");
  if (mode != "avg" && mode != "max") Invalid("RoiAlign: mode must be avg or max");
  const bool is_max = mode == "max";
  bool half_pixel = false;
  if (ctx.OpsetVersion() >= 16) {
    const std::string ct = ctx.GetString("coordinate_transformation_mode", "half_pixel");
    if (ct != "half_pixel" && ct != "output_half_pixel")
      Invalid("RoiAlign: unknown coordinate_transformation_mode '" + ct + "'");
    half_pixel = ct == "half_pixel";
  }
  if (oh <= 0 || ow <= 0 || sampling < 0) Invalid("RoiAlign: bad output size or sampling_ratio");
  Dispatch<kFloatTypes>(x.ElemType(), [&]<typename T>() {
    auto xv = seq::Data<T>(x);
    auto out = seq::AllocOut<T>(ctx, 0, Dims{R, C, oh, ow});
    std::vector<Sample> samples;
    for (int64_t r = 0; r < R; ++r) {
      const int64_t b = bidx[r];
      if (b < 0 || b >= N) Invalid("RoiAlign: batch index " + std::to_string(b) + " is out of range");
      const double off = half_pixel ? 0.5 : 0.0;
      const double x1 = rois[r * 4] * scale - off, y1 = rois[r * 4 + 1] * scale - off;
      const double x2 = rois[r * 4 + 2] * scale - off, y2 = rois[r * 4 + 3] * scale - off;
      double rw = x2 - x1, rh = y2 - y1;
      if (!half_pixel) {
        rw = std::max(rw, 1.0);
        rh = std::max(rh, 1.0);
      }
      const double bh = rh / static_cast<double>(oh), bw = rw / static_cast<double>(ow);
      const int64_t gh = sampling > 0 ? sampling : static_cast<int64_t>(std::ceil(rh / static_cast<double>(oh)));
      const int64_t gw = sampling > 0 ? sampling : static_cast<int64_t>(std::ceil(rw / static_cast<double>(ow)));
      const double count = static_cast<double>(std::max<int64_t>(gh * gw, 1));
      samples.clear();
      for (int64_t ph = 0; ph < oh; ++ph)
        for (int64_t pw = 0; pw < ow; ++pw)
          for (int64_t iy = 0; iy < gh; ++iy) {
            const double yy = y1 + static_cast<double>(ph) * bh + (static_cast<double>(iy) + 0.5) * bh / static_cast<double>(gh);
            for (int64_t ix = 0; ix < gw; ++ix) {
              const double xx = x1 + static_cast<double>(pw) * bw + (static_cast<double>(ix) + 0.5) * bw / static_cast<double>(gw);
              samples.push_back(MakeSample(yy, xx, H, W));
            }
          }
      for (int64_t c = 0; c < C; ++c) {
        const T* plane = xv.data() + (b * C + c) * H * W;
        T* o = out.data() + ((r * C + c) * oh) * ow;
        auto v = [plane](int64_t i) { return static_cast<double>(static_cast<Compute<T>>(plane[i])); };
        size_t si = 0;
        for (int64_t bin = 0; bin < oh * ow; ++bin) {
          double acc = 0;
          bool first = true;
          for (int64_t k = 0; k < gh * gw; ++k, ++si) {
            const Sample& s = samples[si];
            if (is_max) {
              const double m = std::max({s.w1 * v(s.p1), s.w2 * v(s.p2), s.w3 * v(s.p3), s.w4 * v(s.p4)});
              acc = first ? m : std::max(acc, m);
              first = false;
            } else {
              acc += s.w1 * v(s.p1) + s.w2 * v(s.p2) + s.w3 * v(s.p3) + s.w4 * v(s.p4);
            }
          }
          o[bin] = static_cast<T>(static_cast<Compute<T>>(is_max ? acc : acc / count));
        }
      }
    }
  });
}

}  // namespace
}  // namespace kiln::kernels

KILN_PLUGIN_PART(RoiAlign) {
  reg.AddKernelFn({.op_type = "RoiAlign", .since_version = 10}, kiln::kernels::RoiAlign);
}
