// Windowed pooling: MaxPool (Indices output, storage_order, ceil_mode, dilations), AveragePool
// (count_include_pad, ceil_mode), LpPool, and the global forms GlobalMaxPool, GlobalAveragePool, GlobalLpPool.
// N-D over the spatial dims; float16/bfloat16 are computed in float.
#include <kiln/kiln_plugin_parts.hpp>
#include "core/nn_util.h"

#include <limits>

namespace kiln::kernels {
namespace {

using nn::Invalid;

enum class Kind { kMax, kAverage, kLp };

// The p of LpPool/GlobalLpPool: a float attribute in opset 1, an int one since.
float ReadP(const sdk::KernelContext& ctx) {
  sdk::Attribute a = ctx.Attr("p");
  if (!a) return 2.0f;
  if (a.Type() == KILN_ATTR_INT) return static_cast<float>(a.Int());
  if (a.Type() == KILN_ATTR_FLOAT) return a.Float();
  Invalid("LpPool", "attribute p must be an int or a float");
}

struct PoolParams {
  Kind kind;
  bool count_include_pad = false;
  bool column_major = false;  // storage_order 1 for MaxPool's Indices
  float p = 2.0f;
};

// Pools one [in...] plane into [out...]; `index_base` is added to the flat indices written to `idx`.
template <typename T>
void PoolPlane(const T* x, const nn::Window& w, const PoolParams& pp, T* y, int64_t* idx, int64_t index_base,
               const Dims& col_strides) {
  using C = Compute<T>;
  const size_t n = w.rank();
  const int64_t out_size = NumElements(w.out), k_size = NumElements(w.kernel);
  Dims oidx(n, 0), kidx(n, 0), start(n), pos(n);
  for (int64_t o = 0; o < out_size; ++o) {
    for (size_t i = 0; i < n; ++i) start[i] = oidx[i] * w.strides[i] - w.pads[i];
    C best = std::numeric_limits<C>::lowest();
    int64_t best_idx = -1;
    C acc = C(0);
    int64_t valid = 0, in_padded = 0;
    std::fill(kidx.begin(), kidx.end(), 0);
    for (int64_t k = 0; k < k_size; ++k) {
      bool inside = true, inside_padded = true;
      int64_t flat = 0;
      for (size_t i = 0; i < n; ++i) {
        const int64_t p = start[i] + kidx[i] * w.dilations[i];
        pos[i] = p;
        if (p < 0 || p >= w.in[i]) inside = false;
        if (p < -w.pads[i] || p >= w.in[i] + w.pads[i + n]) inside_padded = false;
        flat = flat * w.in[i] + p;
      }
      in_padded += inside_padded;
      if (inside) {
        const C v = static_cast<C>(x[flat]);
        ++valid;
        if (pp.kind == Kind::kMax) {
          if (v > best || best_idx < 0) {
            best = v;
            best_idx = flat;
            if (pp.column_major) {
              best_idx = 0;
              for (size_t i = 0; i < n; ++i) best_idx += pos[i] * col_strides[i];
            }
          }
        } else if (pp.kind == Kind::kAverage) {
          acc += v;
        } else {
          acc += static_cast<C>(std::pow(std::abs(static_cast<double>(v)), static_cast<double>(pp.p)));
        }
      }
      for (size_t i = n; i-- > 0;) {
        if (++kidx[i] < w.kernel[i]) break;
        kidx[i] = 0;
      }
    }
    if (pp.kind == Kind::kMax) {
      y[o] = static_cast<T>(best);
      if (idx) idx[o] = best_idx < 0 ? -1 : index_base + best_idx;
    } else if (pp.kind == Kind::kAverage) {
      const int64_t count = pp.count_include_pad ? in_padded : valid;
      y[o] = static_cast<T>(count > 0 ? acc / static_cast<C>(count) : C(0));
    } else {
      y[o] = static_cast<T>(std::pow(static_cast<double>(acc), 1.0 / static_cast<double>(pp.p)));
    }
    for (size_t i = n; i-- > 0;) {
      if (++oidx[i] < w.out[i]) break;
      oidx[i] = 0;
    }
  }
}

// The taps [lo, hi) of one window dim that fall inside [0, size) (or [-pad_b, size + pad_e) for the padded
// count), for a window starting at `start` with dilation d and k taps.
inline void TapRange(int64_t start, int64_t d, int64_t k, int64_t lo_bound, int64_t hi_bound, int64_t* lo,
                     int64_t* hi) {
  *lo = start < lo_bound ? std::min(k, (lo_bound - start + d - 1) / d) : 0;
  *hi = start > hi_bound - 1 ? 0 : std::min(k, (hi_bound - 1 - start) / d + 1);
  *hi = std::max(*hi, *lo);
}

// The 2-D max and average pools without per-tap bounds checks (the common case: ResNet's MaxPool).
template <typename T>
void PoolPlane2D(const T* x, const nn::Window& w, const PoolParams& pp, T* y, int64_t* idx, int64_t index_base) {
  using C = Compute<T>;
  const int64_t H = w.in[0], W = w.in[1], OH = w.out[0], OW = w.out[1], KH = w.kernel[0], KW = w.kernel[1];
  const int64_t sh = w.strides[0], sw = w.strides[1], dh = w.dilations[0], dw = w.dilations[1];
  std::vector<int64_t> wlo(OW), whi(OW), wplo(OW), wphi(OW);
  for (int64_t ow = 0; ow < OW; ++ow) {
    const int64_t ws = ow * sw - w.pads[1];
    TapRange(ws, dw, KW, 0, W, &wlo[ow], &whi[ow]);
    TapRange(ws, dw, KW, -w.pads[1], W + w.pads[3], &wplo[ow], &wphi[ow]);
  }
  for (int64_t oh = 0; oh < OH; ++oh) {
    const int64_t hs = oh * sh - w.pads[0];
    int64_t hlo, hhi, hplo, hphi;
    TapRange(hs, dh, KH, 0, H, &hlo, &hhi);
    TapRange(hs, dh, KH, -w.pads[0], H + w.pads[2], &hplo, &hphi);
    for (int64_t ow = 0; ow < OW; ++ow) {
      const int64_t ws = ow * sw - w.pads[1];
      const int64_t o = oh * OW + ow;
      if (pp.kind == Kind::kMax) {
        C best = std::numeric_limits<C>::lowest();
        int64_t bh = -1, bw = -1;
        for (int64_t kh = hlo; kh < hhi; ++kh) {
          const int64_t h = hs + kh * dh;
          const T* row = x + h * W;
          for (int64_t kw = wlo[ow]; kw < whi[ow]; ++kw) {
            const C v = static_cast<C>(row[ws + kw * dw]);
            if (v > best || bh < 0) best = v, bh = h, bw = ws + kw * dw;
          }
        }
        y[o] = static_cast<T>(best);
        if (idx) idx[o] = bh < 0 ? -1 : index_base + (pp.column_major ? bw * H + bh : bh * W + bw);
      } else {
        C acc = C(0);
        for (int64_t kh = hlo; kh < hhi; ++kh) {
          const T* row = x + (hs + kh * dh) * W;
          for (int64_t kw = wlo[ow]; kw < whi[ow]; ++kw) acc += static_cast<C>(row[ws + kw * dw]);
        }
        const int64_t count = pp.count_include_pad ? (hphi - hplo) * (wphi[ow] - wplo[ow])
                                                   : (hhi - hlo) * (whi[ow] - wlo[ow]);
        y[o] = static_cast<T>(count > 0 ? acc / static_cast<C>(count) : C(0));
      }
    }
  }
}

void Pool(sdk::KernelContext& ctx, const std::string& op, Kind kind) {
  sdk::TensorView X = ctx.RequiredInput(0);
  std::span<const int64_t> xd = X.Dims();
  if (xd.size() < 3) Invalid(op, "X must have rank >= 3, got " + nn::DimsStr(xd));
  const bool ceil_mode = ctx.GetInt("ceil_mode", 0) != 0;
  nn::Window w = nn::MakeWindow(ctx, op, xd.subspan(2), {}, ceil_mode);
  PoolParams pp{.kind = kind};
  pp.count_include_pad = ctx.GetInt("count_include_pad", 0) != 0;
  pp.column_major = ctx.GetInt("storage_order", 0) != 0;
  if (kind == Kind::kLp) pp.p = ReadP(ctx);
  Dims yd = {xd[0], xd[1]};
  yd.insert(yd.end(), w.out.begin(), w.out.end());
  sdk::MutableTensor Y = ctx.AllocOutput(0, X.ElemType(), yd);
  const bool want_indices = kind == Kind::kMax && ctx.OutputCount() > 1;
  sdk::MutableTensor I;
  if (want_indices) I = ctx.AllocOutput(1, KILN_ELEM_INT64, yd);
  const size_t n = w.rank();
  Dims col_strides(n, 1);
  for (size_t i = 1; i < n; ++i) col_strides[i] = col_strides[i - 1] * w.in[i - 1];
  const int64_t planes = xd[0] * xd[1], in_size = NumElements(w.in), out_size = NumElements(w.out);
  auto run = [&]<typename T>() {
    const T* x = nn::In<T>(X);
    T* y = nn::Out<T>(Y);
    int64_t* idx = want_indices ? I.MutableValues<int64_t>().data() : nullptr;
    if (n == 2 && kind != Kind::kLp) {
      for (int64_t pl = 0; pl < planes; ++pl)
        PoolPlane2D<T>(x + pl * in_size, w, pp, y + pl * out_size, idx ? idx + pl * out_size : nullptr, pl * in_size);
      return;
    }
    for (int64_t pl = 0; pl < planes; ++pl)
      PoolPlane<T>(x + pl * in_size, w, pp, y + pl * out_size, idx ? idx + pl * out_size : nullptr, pl * in_size,
                   col_strides);
  };
  if (kind == Kind::kMax) Dispatch<TypeList<float, double, half, bfloat16, int8_t, uint8_t>>(X.ElemType(), run);
  else Dispatch<kFloatTypes>(X.ElemType(), run);
}

void GlobalPool(sdk::KernelContext& ctx, const std::string& op, Kind kind) {
  sdk::TensorView X = ctx.RequiredInput(0);
  std::span<const int64_t> xd = X.Dims();
  if (xd.size() < 2) Invalid(op, "X must have rank >= 2, got " + nn::DimsStr(xd));
  const float p = kind == Kind::kLp ? ReadP(ctx) : 2.0f;
  Dims yd(xd.size(), 1);
  yd[0] = xd[0];
  yd[1] = xd[1];
  sdk::MutableTensor Y = ctx.AllocOutput(0, X.ElemType(), yd);
  const int64_t planes = xd[0] * xd[1], size = NumElements(xd.subspan(2));
  Dispatch<kFloatTypes>(X.ElemType(), [&]<typename T>() {
    using C = Compute<T>;
    const T* x = nn::In<T>(X);
    T* y = nn::Out<T>(Y);
    for (int64_t pl = 0; pl < planes; ++pl) {
      const T* src = x + pl * size;
      if (kind == Kind::kMax) {
        C best = std::numeric_limits<C>::lowest();
        for (int64_t i = 0; i < size; ++i) best = std::max(best, static_cast<C>(src[i]));
        y[pl] = static_cast<T>(best);
      } else if (kind == Kind::kAverage) {
        C acc = C(0);
        for (int64_t i = 0; i < size; ++i) acc += static_cast<C>(src[i]);
        y[pl] = static_cast<T>(size ? acc / static_cast<C>(size) : C(0));
      } else {
        double acc = 0;
        for (int64_t i = 0; i < size; ++i) acc += std::pow(std::abs(static_cast<double>(static_cast<C>(src[i]))), p);
        y[pl] = static_cast<T>(static_cast<C>(std::pow(acc, 1.0 / p)));
      }
    }
  });
}

std::vector<int32_t> FloatTypes() { return {KILN_ELEM_FLOAT, KILN_ELEM_DOUBLE, KILN_ELEM_FLOAT16, KILN_ELEM_BFLOAT16}; }

}  // namespace
}  // namespace kiln::kernels

KILN_PLUGIN_PART(Pool) {
  using namespace kiln::kernels;
  reg.AddKernelFn({.op_type = "MaxPool",
                   .since_version = 1,
                   .elem_types = {KILN_ELEM_FLOAT, KILN_ELEM_DOUBLE, KILN_ELEM_FLOAT16, KILN_ELEM_BFLOAT16,
                                  KILN_ELEM_INT8, KILN_ELEM_UINT8}},
                  [](kiln::sdk::KernelContext& ctx) { Pool(ctx, "MaxPool", Kind::kMax); });
  reg.AddKernelFn({.op_type = "AveragePool", .since_version = 1, .elem_types = FloatTypes()},
                  [](kiln::sdk::KernelContext& ctx) { Pool(ctx, "AveragePool", Kind::kAverage); });
  reg.AddKernelFn({.op_type = "LpPool", .since_version = 1, .elem_types = FloatTypes()},
                  [](kiln::sdk::KernelContext& ctx) { Pool(ctx, "LpPool", Kind::kLp); });
  reg.AddKernelFn({.op_type = "GlobalMaxPool", .since_version = 1, .elem_types = FloatTypes()},
                  [](kiln::sdk::KernelContext& ctx) { GlobalPool(ctx, "GlobalMaxPool", Kind::kMax); });
  reg.AddKernelFn({.op_type = "GlobalAveragePool", .since_version = 1, .elem_types = FloatTypes()},
                  [](kiln::sdk::KernelContext& ctx) { GlobalPool(ctx, "GlobalAveragePool", Kind::kAverage); });
  reg.AddKernelFn({.op_type = "GlobalLpPool", .since_version = 1, .elem_types = FloatTypes()},
                  [](kiln::sdk::KernelContext& ctx) { GlobalPool(ctx, "GlobalLpPool", Kind::kLp); });
}
