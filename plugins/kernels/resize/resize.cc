// Resize (opset 10, 11-12, 13+) and Upsample (opset 7, 9): nearest, (multi)linear and cubic interpolation over
// any axes, with every coordinate_transformation_mode, nearest_mode, exclude_outside, cubic_coeff_a, scales or
// sizes, and the roi/extrapolation_value of tf_crop_and_resize.
//
// The interpolation is separable, as in ONNX's reference: each axis whose mapping is not the identity gets a
// table of (source index, weight) taps per output position, and one pass per such axis combines whole inner
// rows with those weights. Arithmetic is in float (double for double tensors); integer outputs are rounded.
//
// Bilinear float resizes of a 2-D input, or of a 4-D one over its last two axes (the images of a segmentation
// decoder), instead follow ONNX Runtime's arithmetic step by step: source coordinates in float, clamped into
// the input, weights |x - x1| and |x - x2| (0.5 each at the last row or column), and the four products summed
// in ORT's order. A quantized model that runs DynamicQuantizeLinear after a Resize turns a last-bit difference
// there into a whole quantization step, so being equally accurate is not enough: the bits must agree. Where
// ORT departs from ONNX's reference (align_corners when input length x scale is not a whole number: ORT
// divides by the output length, the reference by length x scale), the reference and its test data win.
#include "core/elem_types.h"
#include <kiln/kiln_plugin_parts.hpp>
#include "core/seq_util.h"
#include "core/shape_util.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace kiln::kernels {
namespace {

using seq::Invalid;

enum class Mode { kNearest, kLinear, kCubic };
enum class Coord { kHalfPixel, kPytorchHalfPixel, kAlignCorners, kAsymmetric, kTfHalfPixelForNn, kTfCropAndResize };
enum class Nearest { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil, kSimple };

struct Options {
  Mode mode = Mode::kNearest;
  Coord coord = Coord::kHalfPixel;
  Nearest nearest = Nearest::kRoundPreferFloor;
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation = 0.0;
};

Mode ParseMode(const std::string& s) {
  if (s == "nearest") return Mode::kNearest;
  if (s == "linear" || s == "bilinear" || s == "trilinear") return Mode::kLinear;
  if (s == "cubic" || s == "bicubic") return Mode::kCubic;
  Invalid("Resize: unknown mode '" + s + "'");
}

Coord ParseCoord(const std::string& s) {
  if (s == "half_pixel") return Coord::kHalfPixel;
  if (s == "pytorch_half_pixel") return Coord::kPytorchHalfPixel;
  if (s == "align_corners") return Coord::kAlignCorners;
  if (s == "asymmetric") return Coord::kAsymmetric;
  if (s == "tf_half_pixel_for_nn") return Coord::kTfHalfPixelForNn;
  if (s == "tf_crop_and_resize") return Coord::kTfCropAndResize;
  Invalid("Resize: unknown coordinate_transformation_mode '" + s + "'");
}

Nearest ParseNearest(const std::string& s) {
  if (s == "round_prefer_floor") return Nearest::kRoundPreferFloor;
  if (s == "round_prefer_ceil") return Nearest::kRoundPreferCeil;
  if (s == "floor") return Nearest::kFloor;
  if (s == "ceil") return Nearest::kCeil;
  Invalid("Resize: unknown nearest_mode '" + s + "'");
}

// The taps of one axis: output position o reads idx[off[o] .. off[o+1]) with weights w, or the extrapolation
// value when extrap[o].
struct AxisPlan {
  std::vector<int64_t> off, idx;
  std::vector<double> w;
  std::vector<uint8_t> extrap;
  bool identity = true;
};

// out_len_f: the resized length as ONNX's reference uses it in align_corners / tf_crop_and_resize
// (input length x scale when scales are given, the output length otherwise).
AxisPlan PlanAxis(const Options& o, int64_t in, int64_t out, double scale, double out_len_f, double roi_start,
                  double roi_end) {
  AxisPlan p;
  p.off.push_back(0);
  p.extrap.assign(out, 0);
  p.identity = in == out;
  std::vector<int64_t> ti;
  std::vector<double> tw;
  for (int64_t x = 0; x < out; ++x) {
    const double xd = static_cast<double>(x);
    double xo = 0;
    switch (o.coord) {
      case Coord::kHalfPixel: xo = (xd + 0.5) / scale - 0.5; break;
      case Coord::kPytorchHalfPixel: xo = out_len_f > 1 ? (xd + 0.5) / scale - 0.5 : 0.0; break;
      case Coord::kAlignCorners:
        xo = out_len_f == 1 ? 0.0 : xd * static_cast<double>(in - 1) / (out_len_f - 1);
        break;
      case Coord::kAsymmetric: xo = xd / scale; break;
      case Coord::kTfHalfPixelForNn: xo = (xd + 0.5) / scale; break;
      case Coord::kTfCropAndResize:
        xo = out_len_f == 1 ? (roi_end - roi_start) * static_cast<double>(in - 1) / 2
                            : xd * (roi_end - roi_start) * static_cast<double>(in - 1) / (out_len_f - 1);
        xo += roi_start * static_cast<double>(in - 1);
        if (xo < 0 || xo > static_cast<double>(in - 1)) {
          p.extrap[x] = 1;
          p.identity = false;
          p.off.push_back(static_cast<int64_t>(p.idx.size()));
          continue;
        }
        break;
    }
    ti.clear();
    tw.clear();
    const double base = std::floor(xo);
    const double r = xo - base;
    const int64_t b = static_cast<int64_t>(base);
    if (o.mode == Mode::kNearest) {
      int64_t i = b;
      if (r != 0) {
        switch (o.nearest) {
          case Nearest::kRoundPreferFloor: i = r <= 0.5 ? b : b + 1; break;
          case Nearest::kRoundPreferCeil: i = r < 0.5 ? b : b + 1; break;
          case Nearest::kFloor: i = b; break;
          case Nearest::kCeil: i = b + 1; break;
          case Nearest::kSimple: i = scale < 1 ? b + 1 : b; break;
        }
      }
      ti.push_back(i);
      tw.push_back(1.0);
    } else if (o.mode == Mode::kLinear) {
      ti = {b, b + 1};
      tw = {1 - r, r};
    } else {
      const double a = o.cubic_a;
      auto c = [a](double t) {  // Keys' cubic kernel at distance t >= 0
        if (t <= 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
        if (t < 2) return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
        return 0.0;
      };
      ti = {b - 1, b, b + 1, b + 2};
      tw = {c(r + 1), c(r), c(1 - r), c(2 - r)};
    }
    if (o.exclude_outside && o.mode != Mode::kNearest) {
      double sum = 0;
      for (size_t k = 0; k < ti.size(); ++k) {
        if (ti[k] < 0 || ti[k] >= in) tw[k] = 0;
        sum += tw[k];
      }
      if (sum != 0)
        for (double& v : tw) v /= sum;
    }
    for (size_t k = 0; k < ti.size(); ++k) {
      if (tw[k] == 0) continue;
      int64_t i = std::clamp<int64_t>(ti[k], 0, in - 1);
      p.idx.push_back(i);
      p.w.push_back(tw[k]);
      if (i != x || tw[k] != 1.0) p.identity = false;
    }
    if (p.off.back() + 1 != static_cast<int64_t>(p.idx.size())) p.identity = false;
    p.off.push_back(static_cast<int64_t>(p.idx.size()));
  }
  return p;
}

// One separable pass along `axis`: src has dims `dims`, dst gets dims[axis] = out.
template <typename C>
void ResizeAxis(const std::vector<C>& src, std::vector<C>& dst, const Dims& dims, size_t axis, int64_t out,
                const AxisPlan& p, C extrap) {
  int64_t outer = 1, inner = 1;
  for (size_t i = 0; i < axis; ++i) outer *= dims[i];
  for (size_t i = axis + 1; i < dims.size(); ++i) inner *= dims[i];
  const int64_t in = dims[axis];
  dst.assign(static_cast<size_t>(outer * out * inner), C(0));
  for (int64_t q = 0; q < outer; ++q) {
    const C* s = src.data() + q * in * inner;
    C* d0 = dst.data() + q * out * inner;
    for (int64_t x = 0; x < out; ++x) {
      C* d = d0 + x * inner;
      if (p.extrap[x]) {
        std::fill(d, d + inner, extrap);
        continue;
      }
      for (int64_t k = p.off[x]; k < p.off[x + 1]; ++k) {
        const C wk = static_cast<C>(p.w[k]);
        const C* sk = s + p.idx[k] * inner;
        for (int64_t j = 0; j < inner; ++j) d[j] += wk * sk[j];
      }
    }
  }
}

// One axis of ORT's bilinear: per output index, the two source indices and their weights.
struct LerpAxis {
  std::vector<int64_t> i1, i2;
  std::vector<float> d1, d2;
};

// ORT's source coordinate, in float. len_f is what align_corners divides by (see the header comment).
float OrtCoordinate(Coord c, float x, float scale, float out_len, float in_len, float len_f) {
  switch (c) {
    case Coord::kAsymmetric: return x / scale;
    case Coord::kPytorchHalfPixel: return out_len > 1 ? (x + 0.5f) / scale - 0.5f : 0.0f;
    case Coord::kTfHalfPixelForNn: return (x + 0.5f) / scale;
    case Coord::kAlignCorners: return len_f == 1 ? 0.0f : x * (in_len - 1) / (len_f - 1);
    default: return ((x + 0.5f) / scale) - 0.5f;  // half_pixel
  }
}

LerpAxis PlanLerp(Coord c, int64_t in, int64_t out, float scale, float len_f) {
  LerpAxis a;
  for (int64_t o = 0; o < out; ++o) {
    float v = scale == 1.0f ? static_cast<float>(o)
                            : OrtCoordinate(c, static_cast<float>(o), scale, static_cast<float>(out),
                                            static_cast<float>(in), len_f);
    v = std::max(0.0f, std::min(v, static_cast<float>(in - 1)));
    const int64_t i1 = std::min(static_cast<int64_t>(v), in - 1), i2 = std::min(i1 + 1, in - 1);
    a.i1.push_back(i1);
    a.i2.push_back(i2);
    a.d1.push_back(i1 == i2 ? 0.5f : std::fabs(v - static_cast<float>(i1)));
    a.d2.push_back(i1 == i2 ? 0.5f : std::fabs(v - static_cast<float>(i2)));
  }
  return a;
}

// ORT's bilinear over the last two axes of `x` (the outer axes unchanged): true when it applied.
bool BilinearAsOrt(const Options& opt, std::span<const float> x, const Dims& in_dims, const Dims& out_dims,
                   const std::vector<float>& scales, const std::vector<double>& len_f, std::span<float> y) {
  const size_t rank = in_dims.size();
  if (opt.mode != Mode::kLinear || opt.coord == Coord::kTfCropAndResize || opt.exclude_outside) return false;
  if (rank != 2 && !(rank == 4 && scales[0] == 1.0f && scales[1] == 1.0f && in_dims[0] == out_dims[0] &&
                     in_dims[1] == out_dims[1]))
    return false;
  const int64_t ih = in_dims[rank - 2], iw = in_dims[rank - 1], oh = out_dims[rank - 2], ow = out_dims[rank - 1];
  const LerpAxis ly = PlanLerp(opt.coord, ih, oh, scales[rank - 2], static_cast<float>(len_f[rank - 2]));
  const LerpAxis lx = PlanLerp(opt.coord, iw, ow, scales[rank - 1], static_cast<float>(len_f[rank - 1]));
  const int64_t planes = rank == 4 ? in_dims[0] * in_dims[1] : 1;
  for (int64_t p = 0; p < planes; ++p) {
    const float* xp = x.data() + p * ih * iw;
    float* yp = y.data() + p * oh * ow;
    for (int64_t r = 0; r < oh; ++r) {
      const float* row1 = xp + ly.i1[r] * iw;
      const float* row2 = xp + ly.i2[r] * iw;
      const float dy1 = ly.d1[r], dy2 = ly.d2[r];
      for (int64_t c = 0; c < ow; ++c) {
        const float x11 = row1[lx.i1[c]], x21 = row1[lx.i2[c]], x12 = row2[lx.i1[c]], x22 = row2[lx.i2[c]];
        const float dx1 = lx.d1[c], dx2 = lx.d2[c];
        yp[r * ow + c] = dx2 * dy2 * x11 + dx1 * dy2 * x21 + dx2 * dy1 * x12 + dx1 * dy1 * x22;
      }
    }
  }
  return true;
}

// scales (empty when sizes are used), sizes (empty when scales are used), roi (empty unless given).
void RunResize(sdk::KernelContext& ctx, const Options& opt, std::vector<double> scales, std::vector<int64_t> sizes,
               const std::vector<double>& roi) {
  sdk::TensorView x = ctx.RequiredInput(0);
  const Dims in_dims(x.Dims().begin(), x.Dims().end());
  const size_t rank = in_dims.size();
  Dims out_dims(rank);
  std::vector<double> len_f(rank);
  std::vector<float> scales_f(rank);  // the scales as ORT holds them: given, or out / in in float
  if (!scales.empty()) {
    if (scales.size() != rank)
      Invalid("Resize: scales has " + std::to_string(scales.size()) + " elements for an input of rank " +
              std::to_string(rank));
    for (size_t i = 0; i < rank; ++i) {
      if (!(scales[i] > 0)) Invalid("Resize: scales must be positive");
      len_f[i] = static_cast<double>(in_dims[i]) * scales[i];
      out_dims[i] = static_cast<int64_t>(len_f[i]);
      scales_f[i] = static_cast<float>(scales[i]);
    }
  } else {
    if (sizes.size() != rank)
      Invalid("Resize: sizes has " + std::to_string(sizes.size()) + " elements for an input of rank " +
              std::to_string(rank));
    scales.resize(rank);
    for (size_t i = 0; i < rank; ++i) {
      if (sizes[i] < 0) Invalid("Resize: sizes must not be negative");
      out_dims[i] = sizes[i];
      len_f[i] = static_cast<double>(sizes[i]);
      scales[i] = in_dims[i] == 0 ? 1.0 : static_cast<double>(sizes[i]) / static_cast<double>(in_dims[i]);
      scales_f[i] = in_dims[i] == 0 ? 1.0f : static_cast<float>(sizes[i]) / static_cast<float>(in_dims[i]);
    }
  }
  if (opt.coord == Coord::kTfCropAndResize && roi.size() != 2 * rank)
    Invalid("Resize: tf_crop_and_resize needs an roi of 2 x rank elements");
  if (opt.mode != Mode::kNearest && x.ElemType() == KILN_ELEM_BOOL) throw sdk::Unsupported("bool interpolation");

  Dispatch<kNumericTypes>(x.ElemType(), [&]<typename T>() {
    using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
    auto out = seq::AllocOut<T>(ctx, 0, out_dims);
    if (out.empty()) return;
    if (NumElements(in_dims) == 0) Invalid("Resize: cannot resize an empty input to a non-empty output");
    auto xv = seq::Data<T>(x);
    if constexpr (std::is_same_v<T, float>) {
      if (BilinearAsOrt(opt, xv, in_dims, out_dims, scales_f, len_f, out)) return;
    }
    std::vector<C> cur(xv.size()), next;
    for (size_t i = 0; i < xv.size(); ++i) cur[i] = static_cast<C>(static_cast<Compute<T>>(xv[i]));
    Dims dims = in_dims;
    for (size_t a = rank; a-- > 0;) {
      const double r0 = roi.empty() ? 0.0 : roi[a], r1 = roi.empty() ? 1.0 : roi[a + rank];
      AxisPlan p = PlanAxis(opt, in_dims[a], out_dims[a], scales[a], len_f[a], r0, r1);
      if (p.identity) continue;
      ResizeAxis<C>(cur, next, dims, a, out_dims[a], p, static_cast<C>(opt.extrapolation));
      dims[a] = out_dims[a];
      cur.swap(next);
    }
    for (size_t i = 0; i < out.size(); ++i) {
      if constexpr (std::is_integral_v<T>) {
        double v = std::nearbyint(static_cast<double>(cur[i]));
        v = std::clamp(v, static_cast<double>(std::numeric_limits<T>::lowest()),
                       static_cast<double>(std::numeric_limits<T>::max()));
        out[i] = static_cast<T>(v);
      } else {
        out[i] = static_cast<T>(cur[i]);
      }
    }
  });
}

// Opset <= 10 (Upsample, Resize-10): asymmetric coordinates; nearest rounds down when upsampling (ONNX
// Runtime's behaviour, which the Upsample test data follows).
Options LegacyOptions(sdk::KernelContext& ctx) {
  Options o;
  o.mode = ParseMode(ctx.GetString("mode", "nearest"));
  if (o.mode == Mode::kCubic) throw sdk::Unsupported("cubic mode needs Resize-11 or later");
  o.coord = Coord::kAsymmetric;
  o.nearest = Nearest::kSimple;
  return o;
}

void ResizeLegacy(sdk::KernelContext& ctx, std::vector<double> scales) {
  RunResize(ctx, LegacyOptions(ctx), std::move(scales), {}, {});
}

void Resize11(sdk::KernelContext& ctx) {
  if (ctx.GetInt("antialias", 0) != 0 || ctx.HasAttr("axes") ||
      ctx.GetString("keep_aspect_ratio_policy", "stretch") != "stretch")
    throw sdk::Unsupported("Resize-18 antialias / axes / keep_aspect_ratio_policy");
  Options o;
  o.mode = ParseMode(ctx.GetString("mode", "nearest"));
  o.coord = ParseCoord(ctx.GetString("coordinate_transformation_mode", "half_pixel"));
  o.nearest = ParseNearest(ctx.GetString("nearest_mode", "round_prefer_floor"));
  o.cubic_a = ctx.GetFloat("cubic_coeff_a", -0.75f);
  o.exclude_outside = ctx.GetInt("exclude_outside", 0) != 0;
  o.extrapolation = ctx.GetFloat("extrapolation_value", 0.0f);
  sdk::TensorView roi_t = seq::OptionalInput(ctx, 1);
  sdk::TensorView scales_t = seq::OptionalInput(ctx, 2);
  sdk::TensorView sizes_t = seq::OptionalInput(ctx, 3);
  std::vector<double> roi, scales;
  std::vector<int64_t> sizes;
  if (roi_t && o.coord == Coord::kTfCropAndResize) roi = seq::ReadAs<double>(roi_t);
  if (scales_t && sizes_t) Invalid("Resize: only one of scales and sizes may be given");
  if (scales_t) {
    for (float s : seq::ReadAs<float>(scales_t)) scales.push_back(s);
  } else if (sizes_t) {
    sizes = seq::ReadInts(sizes_t);
  } else {
    Invalid("Resize: one of scales and sizes must be given");
  }
  RunResize(ctx, o, std::move(scales), std::move(sizes), roi);
}

std::vector<double> ScalesFromInput(sdk::KernelContext& ctx) {
  if (ctx.InputCount() < 2 || !ctx.Input(1)) Invalid("the scales input is required");
  std::vector<double> scales;
  for (float s : seq::ReadAs<float>(ctx.RequiredInput(1))) scales.push_back(s);
  return scales;
}

}  // namespace
}  // namespace kiln::kernels

KILN_PLUGIN_PART(Resize) {
  using namespace kiln::kernels;
  reg.AddKernelFn({.op_type = "Upsample", .since_version = 7, .until_version = 8},
                  [](kiln::sdk::KernelContext& ctx) {
                    std::vector<double> scales;
                    for (float s : ctx.GetFloats("scales")) scales.push_back(s);
                    if (scales.empty()) seq::Invalid("Upsample: the scales attribute is required");
                    ResizeLegacy(ctx, std::move(scales));
                  });
  reg.AddKernelFn({.op_type = "Upsample", .since_version = 9},
                  [](kiln::sdk::KernelContext& ctx) { ResizeLegacy(ctx, ScalesFromInput(ctx)); });
  reg.AddKernelFn({.op_type = "Resize", .since_version = 10, .until_version = 10},
                  [](kiln::sdk::KernelContext& ctx) { ResizeLegacy(ctx, ScalesFromInput(ctx)); });
  reg.AddKernelFn({.op_type = "Resize", .since_version = 11}, Resize11);
}
