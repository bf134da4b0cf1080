// Shared helpers for the neural-network kernel families (linalg/, quant/, conv/, pool/): typed data pointers
// (float16/bfloat16 included), invalid-argument errors, a row-major GEMM over Eigen, and the spatial geometry
// (kernel, strides, dilations, pads, auto_pad, output sizes) that Conv, ConvTranspose and the pools share.
#pragma once

#include "core/elem_types.h"
#include "core/shape_util.h"

#include <kiln/kiln_plugin.hpp>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <vector>

namespace kiln::kernels::nn {

[[noreturn]] inline void Invalid(const std::string& op, const std::string& what) {
  throw sdk::Error(op + ": " + what, KILN_STATUS_INVALID_ARGUMENT);
}

inline std::string DimsStr(std::span<const int64_t> d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

// The elements of a tensor as T (T from elem_types.h: half/bfloat16 included); checks the element type.
template <typename T>
const T* In(const sdk::TensorView& t) {
  if (t.ElemType() != ElemTypeOf<T>())
    throw sdk::Error("tensor of element type " + std::to_string(t.ElemType()) + " read as " +
                         std::to_string(ElemTypeOf<T>()),
                     KILN_STATUS_INVALID_ARGUMENT);
  return static_cast<const T*>(t.Data());
}
template <typename T>
T* Out(const sdk::MutableTensor& t) {
  return static_cast<T*>(t.MutableData());
}

// Any tensor of a numeric element type read as a vector of Compute-type values (small tensors: scales, zero
// points, biases).
template <typename C>
std::vector<C> ReadAs(const sdk::TensorView& t) {
  std::vector<C> out(static_cast<size_t>(t.ElementCount()));
  Dispatch<kNumericTypes>(t.ElemType(), [&]<typename T>() {
    const T* p = In<T>(t);
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<C>(static_cast<Compute<T>>(p[i]));
  });
  return out;
}

template <typename T>
using RowMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// C[M,N] = alpha * op(A) * op(B) + beta * C over row-major blocks with leading dims lda/ldb/ldc (elements
// between rows as stored). beta == 0 ignores C's prior contents.
template <typename T>
void GemmBlock(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t lda,
               const T* B, int64_t ldb, T beta, T* C, int64_t ldc) {
  using Stride = Eigen::OuterStride<>;
  Eigen::Map<RowMat<T>, 0, Stride> c(C, M, N, Stride(ldc));
  if (K == 0) {
    if (beta == T(0)) c.setZero();
    else c *= beta;
    return;
  }
  auto run = [&](const auto& a, const auto& b) {
    if (beta == T(0)) {
      if (alpha == T(1)) c.noalias() = a * b;
      else c.noalias() = alpha * (a * b);
    } else {
      if (beta != T(1)) c *= beta;
      if (alpha == T(1)) c.noalias() += a * b;
      else c.noalias() += alpha * (a * b);
    }
  };
  Eigen::Map<const RowMat<T>, 0, Stride> a(A, trans_a ? K : M, trans_a ? M : K, Stride(lda));
  Eigen::Map<const RowMat<T>, 0, Stride> b(B, trans_b ? N : K, trans_b ? K : N, Stride(ldb));
  if (trans_a && trans_b) run(a.transpose(), b.transpose());
  else if (trans_a) run(a.transpose(), b);
  else if (trans_b) run(a, b.transpose());
  else run(a, b);
}

// Threads for one large product: KILN_KERNEL_THREADS when set, else the hardware's (at most 8).
inline int GemmThreads() {
  static const int n = [] {
    if (const char* e = std::getenv("KILN_KERNEL_THREADS")) return std::max(1, std::atoi(e));
    return static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
  }();
  return n;
}

// C[M,N] = alpha * op(A) * op(B) + beta * C, all row-major and contiguous; op(A) is [M,K], op(B) [K,N].
// beta == 0 ignores C's prior contents. T is a type Eigen multiplies (float, double, integers). A large product
// is split along its longer output dim across GemmThreads() threads.
template <typename T>
void Gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, T alpha, const T* A, const T* B, T beta,
          T* C) {
  const int64_t lda = trans_a ? M : K, ldb = trans_b ? K : N;
  const int threads = static_cast<int>(std::min<int64_t>(GemmThreads(), std::max(M, N) / 32));
  if (threads < 2 || M * N * K < (int64_t{1} << 21)) {
    GemmBlock(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, N);
    return;
  }
  const bool split_m = M >= N;
  const int64_t len = split_m ? M : N, chunk = (len + threads - 1) / threads;
  auto part = [&](int64_t lo) {
    const int64_t n = std::min(chunk, len - lo);
    if (n <= 0) return;
    if (split_m)
      GemmBlock(trans_a, trans_b, n, N, K, alpha, trans_a ? A + lo : A + lo * lda, lda, B, ldb, beta, C + lo * N, N);
    else
      GemmBlock(trans_a, trans_b, M, n, K, alpha, A, lda, trans_b ? B + lo * ldb : B + lo, ldb, beta, C + lo, N);
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(part, t * chunk);
  part(0);
  for (std::thread& t : pool) t.join();
}

// Converts n elements between types (used to widen float16/bfloat16 to float and back).
template <typename To, typename From>
void Convert(const From* in, To* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<To>(static_cast<Compute<From>>(in[i]));
}

template <typename T>
std::vector<Compute<T>> Widen(const T* in, int64_t n) {
  std::vector<Compute<T>> out(static_cast<size_t>(n));
  Convert(in, out.data(), n);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Spatial geometry shared by Conv, ConvTranspose and the pools
// ---------------------------------------------------------------------------------------------------------------

struct Window {
  Dims in;         // input spatial dims
  Dims kernel;     // kernel spatial dims
  Dims strides;    // per spatial dim
  Dims dilations;  // per spatial dim
  Dims pads;       // begin_0.. begin_{n-1}, end_0.. end_{n-1}
  Dims out;        // output spatial dims
  size_t rank() const { return in.size(); }
};

// Reads kernel_shape (or takes `kernel`), strides, dilations, pads and auto_pad, and computes the output spatial
// dims the way Conv and the pools do (ceil_mode for pools).
inline Window MakeWindow(const sdk::KernelContext& ctx, const std::string& op, std::span<const int64_t> in_spatial,
                         Dims kernel, bool ceil_mode = false, bool use_dilations = true) {
  Window w;
  const size_t n = in_spatial.size();
  w.in.assign(in_spatial.begin(), in_spatial.end());
  Dims ks = ctx.GetInts("kernel_shape");
  if (!ks.empty()) {
    if (!kernel.empty() && ks != kernel)
      Invalid(op, "kernel_shape " + DimsStr(ks) + " does not match the weights' " + DimsStr(kernel));
    kernel = ks;
  }
  if (kernel.size() != n) Invalid(op, "kernel_shape has rank " + std::to_string(kernel.size()) + ", input has " +
                                          std::to_string(n) + " spatial dims");
  w.kernel = kernel;
  w.strides = ctx.GetInts("strides", Dims(n, 1));
  w.dilations = use_dilations ? ctx.GetInts("dilations", Dims(n, 1)) : Dims(n, 1);
  if (w.strides.empty()) w.strides.assign(n, 1);
  if (w.dilations.empty()) w.dilations.assign(n, 1);
  w.pads = ctx.GetInts("pads", Dims(2 * n, 0));
  if (w.pads.empty()) w.pads.assign(2 * n, 0);
  if (w.strides.size() != n || w.dilations.size() != n || w.pads.size() != 2 * n)
    Invalid(op, "strides, dilations or pads do not match the " + std::to_string(n) + " spatial dims");
  for (size_t i = 0; i < n; ++i)
    if (w.strides[i] < 1 || w.dilations[i] < 1 || w.kernel[i] < 1) Invalid(op, "non-positive kernel, stride or dilation");
  const std::string auto_pad = ctx.GetString("auto_pad", "NOTSET");
  w.out.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const int64_t span = (w.kernel[i] - 1) * w.dilations[i] + 1;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const int64_t out = (w.in[i] + w.strides[i] - 1) / w.strides[i];
      const int64_t total = std::max<int64_t>(0, (out - 1) * w.strides[i] + span - w.in[i]);
      w.pads[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      w.pads[i + n] = total - w.pads[i];
      w.out[i] = out;
    } else {
      if (auto_pad == "VALID") w.pads[i] = w.pads[i + n] = 0;
      else if (auto_pad != "NOTSET" && !auto_pad.empty()) Invalid(op, "unknown auto_pad '" + auto_pad + "'");
      const int64_t padded = w.in[i] + w.pads[i] + w.pads[i + n] - span;
      if (padded < 0) Invalid(op, "the kernel is larger than the padded input");
      int64_t out = (ceil_mode ? (padded + w.strides[i] - 1) / w.strides[i] : padded / w.strides[i]) + 1;
      // A window that would start in the end padding is dropped (ceil_mode only).
      if (ceil_mode && (out - 1) * w.strides[i] >= w.in[i] + w.pads[i]) --out;
      w.out[i] = out;
    }
  }
  return w;
}

// im2col for one image (or one group of its channels): `x` is [C, in...]; `col` becomes
// [C * prod(kernel), prod(out)], row-major, with zero (or `pad`) where a tap falls in the padding.
template <typename T>
void Im2Col(const T* x, int64_t C, const Window& w, T* col, T pad = T(0)) {
  const size_t n = w.rank();
  const int64_t in_size = NumElements(w.in), out_size = NumElements(w.out), k_size = NumElements(w.kernel);
  const int64_t last_out = w.out[n - 1], last_in = w.in[n - 1];
  const int64_t s_last = w.strides[n - 1], d_last = w.dilations[n - 1], p_last = w.pads[n - 1];
  Dims kidx(n, 0), oidx(n, 0);
  for (int64_t c = 0; c < C; ++c) {
    const T* xc = x + c * in_size;
    std::fill(kidx.begin(), kidx.end(), 0);
    for (int64_t k = 0; k < k_size; ++k) {
      T* row = col + (c * k_size + k) * out_size;
      // Walk the output positions: outer dims by odometer, the last one in a tight loop.
      std::fill(oidx.begin(), oidx.end(), 0);
      const int64_t off_last = kidx[n - 1] * d_last - p_last;
      // The output columns j whose tap j * s_last + off_last lies inside the row: [j_lo, j_hi).
      const int64_t j_lo = std::min(last_out, off_last < 0 ? (-off_last + s_last - 1) / s_last : int64_t{0});
      const int64_t j_hi =
          std::max(j_lo, std::min(last_out, off_last >= last_in ? int64_t{0} : (last_in - 1 - off_last) / s_last + 1));
      for (int64_t o = 0; o < out_size; o += last_out) {
        int64_t base = 0;
        bool inside = true;
        for (size_t i = 0; i + 1 < n; ++i) {
          const int64_t pos = oidx[i] * w.strides[i] + kidx[i] * w.dilations[i] - w.pads[i];
          if (pos < 0 || pos >= w.in[i]) {
            inside = false;
            break;
          }
          base = base * w.in[i] + pos;
        }
        T* dst = row + o;
        if (!inside) {
          std::fill(dst, dst + last_out, pad);
        } else {
          const T* src = xc + base * last_in;
          std::fill(dst, dst + j_lo, pad);
          if (s_last == 1) std::copy(src + j_lo + off_last, src + j_hi + off_last, dst + j_lo);
          else
            for (int64_t j = j_lo; j < j_hi; ++j) dst[j] = src[j * s_last + off_last];
          std::fill(dst + j_hi, dst + last_out, pad);
        }
        for (size_t i = n - 1; i-- > 0;) {
          if (++oidx[i] < w.out[i]) break;
          oidx[i] = 0;
        }
      }
      for (size_t i = n; i-- > 0;) {
        if (++kidx[i] < w.kernel[i]) break;
        kidx[i] = 0;
      }
    }
  }
}

// col2im (the adjoint of Im2Col): adds `col` [C * prod(kernel), prod(w.out)] into `x` [C, w.in...]. Used by
// ConvTranspose, where w.in is the (larger) output and w.out the input spatial dims.
template <typename T>
void Col2ImAdd(const T* col, int64_t C, const Window& w, T* x) {
  const size_t n = w.rank();
  const int64_t in_size = NumElements(w.in), out_size = NumElements(w.out), k_size = NumElements(w.kernel);
  Dims kidx(n, 0), oidx(n, 0);
  for (int64_t c = 0; c < C; ++c) {
    T* xc = x + c * in_size;
    std::fill(kidx.begin(), kidx.end(), 0);
    for (int64_t k = 0; k < k_size; ++k) {
      const T* row = col + (c * k_size + k) * out_size;
      std::fill(oidx.begin(), oidx.end(), 0);
      for (int64_t o = 0; o < out_size; ++o) {
        int64_t idx = 0;
        bool inside = true;
        for (size_t i = 0; i < n; ++i) {
          const int64_t pos = oidx[i] * w.strides[i] + kidx[i] * w.dilations[i] - w.pads[i];
          if (pos < 0 || pos >= w.in[i]) {
            inside = false;
            break;
          }
          idx = idx * w.in[i] + pos;
        }
        if (inside) xc[idx] += row[o];
        for (size_t i = n; i-- > 0;) {
          if (++oidx[i] < w.out[i]) break;
          oidx[i] = 0;
        }
      }
      for (size_t i = n; i-- > 0;) {
        if (++kidx[i] < w.kernel[i]) break;
        kidx[i] = 0;
      }
    }
  }
}

// Broadcast batch dims of two matrices stacks (MatMul semantics after 1-D promotion): a_batch and b_batch are the
// leading dims; returns the output batch dims and, per output batch, the matrix offsets into A and B.
struct BatchPlan {
  Dims batch;
  std::vector<int64_t> a_index, b_index;
};

inline BatchPlan PlanBatches(const std::string& op, std::span<const int64_t> a_batch,
                             std::span<const int64_t> b_batch) {
  BatchPlan p;
  try {
    std::span<const int64_t> shapes[] = {a_batch, b_batch};
    p.batch = BroadcastShape(shapes);
  } catch (const sdk::Error&) {
    Invalid(op, "batch dims " + DimsStr(a_batch) + " and " + DimsStr(b_batch) + " do not broadcast");
  }
  const int64_t count = NumElements(p.batch);
  p.a_index.resize(count);
  p.b_index.resize(count);
  BroadcastIndex ai(a_batch, p.batch), bi(b_batch, p.batch);
  for (int64_t i = 0; i < count; ++i) {
    p.a_index[i] = ai.index();
    p.b_index[i] = bi.index();
    ai.Next();
    bi.Next();
  }
  return p;
}

}  // namespace kiln::kernels::nn
