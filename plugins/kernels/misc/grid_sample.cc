// GridSample (opset 16): samples X [N, C, H, W] at the normalised (x, y) locations of grid [N, Ho, Wo, 2],
// with bilinear, nearest or bicubic interpolation, zeros / border / reflection padding and align_corners, as
// PyTorch's grid_sample (which produced ONNX's test data) does: nearest and bilinear clip or reflect the source
// coordinate first, bicubic pads each of its 16 taps.
#include "core/elem_types.h"
#include <kiln/kiln_plugin_parts.hpp>
#include "core/seq_util.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace kiln::kernels {
namespace {

using seq::Invalid;

enum class Pad { kZeros, kBorder, kReflection };

// Reflects x into [twice_low / 2, twice_high / 2] (PyTorch's reflect_coordinates).
double Reflect(double x, double twice_low, double twice_high) {
  if (twice_low == twice_high) return 0;
  const double lo = twice_low / 2, span = (twice_high - twice_low) / 2;
  x = std::abs(x - lo);
  const double extra = std::fmod(x, span);
  const int64_t flips = static_cast<int64_t>(std::floor(x / span));
  return flips % 2 == 0 ? extra + lo : span - extra + lo;
}

// The source coordinate after padding for nearest/bilinear (and the tap index for bicubic).
double PadCoord(double x, int64_t size, Pad pad, bool align) {
  if (pad == Pad::kBorder) return std::clamp(x, 0.0, static_cast<double>(size - 1));
  if (pad == Pad::kReflection) {
    x = align ? Reflect(x, 0, 2.0 * static_cast<double>(size - 1)) : Reflect(x, -1, 2.0 * static_cast<double>(size) - 1);
    return std::clamp(x, 0.0, static_cast<double>(size - 1));
  }
  return x;
}

void CubicCoeffs(double t, double c[4]) {
  constexpr double A = -0.75;
  auto near = [](double x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };
  auto far = [](double x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };
  c[0] = far(t + 1);
  c[1] = near(t);
  c[2] = near(1 - t);
  c[3] = far(2 - t);
}

void GridSample(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0), grid = ctx.RequiredInput(1);
  if (x.Rank() != 4) throw sdk::Unsupported("GridSample: only 4-D input is handled");
  if (grid.Rank() != 4 || grid.Dims()[3] != 2 || grid.Dims()[0] != x.Dims()[0])
    Invalid("GridSample: grid must be [N, H_out, W_out, 2] with X's batch");
  const int64_t N = x.Dims()[0], C = x.Dims()[1], H = x.Dims()[2], W = x.Dims()[3];
  const int64_t Ho = grid.Dims()[1], Wo = grid.Dims()[2];
  std::string mode = ctx.GetString("mode", "bilinear");
  if (mode == "linear") mode = "bilinear";  // opset 20 names
  if (mode == "cubic") mode = "bicubic";
  const std::string pad_s = ctx.GetString("padding_mode", "zeros");
  const bool align = ctx.GetInt("align_corners", 0) != 0;
  Pad pad = Pad::kZeros;
  if (pad_s == "border") pad = Pad::kBorder;
  else if (pad_s == "reflection") pad = Pad::kReflection;
  else if (pad_s != "zeros") Invalid("GridSample: unknown padding_mode '" + pad_s + "'");
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic") Invalid("GridSample: unknown mode '" + mode + "'");
  const bool bicubic = mode == "bicubic", nearest = mode == "nearest";
  const std::vector<double> g = seq::ReadAs<double>(grid);
  auto denorm = [align](double v, int64_t size) {
    return align ? (v + 1) / 2 * static_cast<double>(size - 1) : ((v + 1) * static_cast<double>(size) - 1) / 2;
  };
  Dispatch<kFloatTypes>(x.ElemType(), [&]<typename T>() {
    auto xv = seq::Data<T>(x);
    auto out = seq::AllocOut<T>(ctx, 0, Dims{N, C, Ho, Wo});
    for (int64_t n = 0; n < N; ++n)
      for (int64_t c = 0; c < C; ++c) {
        const T* img = xv.data() + (n * C + c) * H * W;
        auto at = [&](int64_t r, int64_t col) -> double {  // zero outside the image
          if (r < 0 || r >= H || col < 0 || col >= W) return 0.0;
          return static_cast<double>(static_cast<Compute<T>>(img[r * W + col]));
        };
        T* o = out.data() + (n * C + c) * Ho * Wo;
        for (int64_t p = 0; p < Ho * Wo; ++p) {
          const double* gp = &g[(n * Ho * Wo + p) * 2];
          double sx = denorm(gp[0], W), sy = denorm(gp[1], H);
          double v = 0;
          if (bicubic) {
            const double fx = std::floor(sx), fy = std::floor(sy);
            double cx[4], cy[4];
            CubicCoeffs(sx - fx, cx);
            CubicCoeffs(sy - fy, cy);
            for (int i = 0; i < 4; ++i) {
              double row = 0;
              for (int j = 0; j < 4; ++j) {
                double tx = fx - 1 + j, ty = fy - 1 + i;
                if (pad != Pad::kZeros) {
                  tx = PadCoord(tx, W, pad, align);
                  ty = PadCoord(ty, H, pad, align);
                }
                row += cx[j] * at(static_cast<int64_t>(ty), static_cast<int64_t>(tx));
              }
              v += cy[i] * row;
            }
          } else {
            sx = PadCoord(sx, W, pad, align);
            sy = PadCoord(sy, H, pad, align);
            if (nearest) {
              v = at(static_cast<int64_t>(std::nearbyint(sy)), static_cast<int64_t>(std::nearbyint(sx)));
            } else {
              const double fx = std::floor(sx), fy = std::floor(sy);
              const int64_t x1 = static_cast<int64_t>(fx), y1 = static_cast<int64_t>(fy);
              const double dx = sx - fx, dy = sy - fy;
              v = (1 - dy) * ((1 - dx) * at(y1, x1) + dx * at(y1, x1 + 1)) +
                  dy * ((1 - dx) * at(y1 + 1, x1) + dx * at(y1 + 1, x1 + 1));
            }
          }
          o[p] = static_cast<T>(static_cast<Compute<T>>(v));
        }
      }
  });
}

}  // namespace
}  // namespace kiln::kernels

KILN_PLUGIN_PART(GridSample) {
  reg.AddKernelFn({.op_type = "GridSample", .since_version = 16}, kiln::kernels::GridSample);
}
