// Helpers shared by the elementwise, reduce and norm kernel families: typed access to tensor data (float16 and
// bfloat16 included, which the SDK's typed views do not cover), element-type lists for kernel specs, a coalescing
// multidirectional-broadcast loop (runs of contiguous or constant operands, no per-element index arithmetic),
// reduction runs, and axis/attribute readers.
#pragma once

#include "core/elem_types.h"
#include "core/shape_util.h"

#include <kiln/kiln_plugin.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace kiln::kernels::ew {

// Kernels here keep no state: the host may run them on several threads at once.
inline constexpr uint32_t kFlags = KILN_KERNEL_THREAD_SAFE;

template <typename... Ts>
std::vector<int32_t> ElemTypes(TypeList<Ts...>) {
  return {ElemTypeOf<Ts>()...};
}
template <typename List>
std::vector<int32_t> ElemTypes() {
  return ElemTypes(List{});
}

[[noreturn]] inline void Invalid(const std::string& message) {
  throw sdk::Error(message, KILN_STATUS_INVALID_ARGUMENT);
}

// The elements of t as T; the element type must be T's.
template <typename T>
const T* Data(const sdk::TensorView& t) {
  if (t.ElemType() != ElemTypeOf<T>())
    Invalid("tensor of element type " + std::to_string(t.ElemType()) + " read as type " +
            std::to_string(ElemTypeOf<T>()));
  return static_cast<const T*>(t.Data());
}
template <typename T>
T* MutData(const sdk::MutableTensor& t) {
  if (t.ElemType() != ElemTypeOf<T>())
    Invalid("tensor of element type " + std::to_string(t.ElemType()) + " written as type " +
            std::to_string(ElemTypeOf<T>()));
  return static_cast<T*>(t.MutableData());
}

// For the Add* registration helpers: a make() for element functions without attributes.
template <typename F>
auto NoAttrs(F f) {
  return [f](sdk::KernelContext&) { return f; };
}

// Every element of a numeric tensor as double (attribute-like inputs: axes, K, clip bounds, scales).
inline std::vector<double> ToDoubles(const sdk::TensorView& t) {
  std::vector<double> out(static_cast<size_t>(t.ElementCount()));
  Dispatch<kAllPodTypes>(t.ElemType(), [&]<typename T>() {
    const T* p = Data<T>(t);
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(static_cast<Compute<T>>(p[i]));
  });
  return out;
}

// The elements of an integer tensor (axes, K, shapes) as int64.
inline std::vector<int64_t> ToInt64s(const sdk::TensorView& t) {
  std::vector<int64_t> out(static_cast<size_t>(t.ElementCount()));
  Dispatch<kIntTypes>(t.ElemType(), [&]<typename T>() {
    const T* p = Data<T>(t);
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<int64_t>(p[i]);
  });
  return out;
}

// Axes made non-negative, checked against the rank and for repeats.
inline std::vector<int64_t> NormalizeAxes(std::span<const int64_t> axes, int64_t rank) {
  std::vector<int64_t> out;
  for (int64_t a : axes) {
    int64_t n = NormalizeAxis(a, rank);
    if (std::find(out.begin(), out.end(), n) != out.end()) Invalid("axis " + std::to_string(a) + " is repeated");
    out.push_back(n);
  }
  return out;
}

// The product of dims[begin, end).
inline int64_t Product(std::span<const int64_t> dims, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t i = begin; i < end && i < dims.size(); ++i) n *= dims[i];
  return n;
}

// ---------------------------------------------------------------------------------------------------------------
// Broadcasting loops
// ---------------------------------------------------------------------------------------------------------------

// N operands broadcast to one shape, with the loop dimensions coalesced: adjacent dimensions merge wherever every
// operand walks them as one (contiguously, or not at all).
template <size_t N>
struct BroadcastPlan {
  Dims out_dims;                  // the broadcast shape
  Dims dims;                      // coalesced loop dimensions (at least one)
  std::array<Dims, N> strides;    // per operand and loop dimension; 0 where it is broadcast
  int64_t count = 0;              // elements of the output
};

template <size_t N>
BroadcastPlan<N> MakeBroadcastPlan(const std::array<std::span<const int64_t>, N>& shapes) {
  BroadcastPlan<N> p;
  p.out_dims = BroadcastShape(std::span<const std::span<const int64_t>>(shapes.data(), N));
  p.count = NumElements(p.out_dims);
  const size_t rank = p.out_dims.size();
  std::array<Dims, N> full;
  for (size_t k = 0; k < N; ++k) {
    full[k].assign(rank, 0);
    Dims s = Strides(shapes[k]);
    const size_t off = rank - shapes[k].size();
    for (size_t i = 0; i < shapes[k].size(); ++i) full[k][off + i] = shapes[k][i] == 1 ? 0 : s[i];
  }
  for (size_t i = 0; i < rank; ++i) {
    const int64_t d = p.out_dims[i];
    if (d == 1) continue;
    if (!p.dims.empty()) {
      const int64_t prev = p.dims.back();
      bool merge = true;
      for (size_t k = 0; k < N && merge; ++k) merge = p.strides[k].back() == full[k][i] * d;
      // The previous (outer) dimension continues into this one for every operand: fold it in.
      if (merge) {
        p.dims.back() = prev * d;
        for (size_t k = 0; k < N; ++k) p.strides[k].back() = full[k][i];
        continue;
      }
    }
    p.dims.push_back(d);
    for (size_t k = 0; k < N; ++k) p.strides[k].push_back(full[k][i]);
  }
  if (p.dims.empty()) {
    p.dims.push_back(1);
    for (size_t k = 0; k < N; ++k) p.strides[k].push_back(0);
  }
  return p;
}

// Calls f(offsets, out_offset, n, inner_strides) for each run of the innermost loop dimension: the operands' start
// offsets, the output's, the run length and each operand's stride along the run (0 or 1).
template <size_t N, typename F>
void ForEachRun(const BroadcastPlan<N>& p, F&& f) {
  if (p.count == 0) return;
  const size_t r = p.dims.size();
  const int64_t inner = p.dims[r - 1];
  std::array<int64_t, N> inner_strides{}, off{};
  for (size_t k = 0; k < N; ++k) inner_strides[k] = p.strides[k][r - 1];
  const int64_t outer = p.count / inner;
  Dims counter(r, 0);
  for (int64_t o = 0, out_off = 0; o < outer; ++o, out_off += inner) {
    f(off, out_off, inner, inner_strides);
    for (size_t d = r - 1; d-- > 0;) {
      for (size_t k = 0; k < N; ++k) off[k] += p.strides[k][d];
      if (++counter[d] < p.dims[d]) break;
      for (size_t k = 0; k < N; ++k) off[k] -= p.strides[k][d] * p.dims[d];
      counter[d] = 0;
    }
  }
}

// out[i] = f(a[..], b[..]) over the broadcast of a and b (out has the plan's output shape). The four run shapes
// (both contiguous, one constant, both constant) get their own loops so the compiler can vectorise them.
template <typename A, typename B, typename O, typename F>
void BinaryLoop(const BroadcastPlan<2>& plan, const A* a, const B* b, O* out, F&& f) {
  ForEachRun(plan, [&](const std::array<int64_t, 2>& off, int64_t o, int64_t n, const std::array<int64_t, 2>& st) {
    const A* pa = a + off[0];
    const B* pb = b + off[1];
    O* po = out + o;
    if (st[0] && st[1]) {
      for (int64_t i = 0; i < n; ++i) po[i] = f(pa[i], pb[i]);
    } else if (st[0]) {
      const B y = pb[0];
      for (int64_t i = 0; i < n; ++i) po[i] = f(pa[i], y);
    } else if (st[1]) {
      const A x = pa[0];
      for (int64_t i = 0; i < n; ++i) po[i] = f(x, pb[i]);
    } else {
      const O v = f(pa[0], pb[0]);
      std::fill(po, po + n, v);
    }
  });
}

// The shape B broadcasts from in a binary op. Before opset 7, broadcasting was unidirectional and opt-in
// (`broadcast` = 1) with `axis` saying where B's dimensions start in A's: B's shape gets trailing 1s so numpy
// broadcasting lines it up there. Otherwise B's own shape.
inline Dims LegacyBroadcastDims(const sdk::KernelContext& ctx, std::span<const int64_t> a, std::span<const int64_t> b) {
  Dims out(b.begin(), b.end());
  if (ctx.OpsetVersion() >= 7 || ctx.GetInt("broadcast", 0) == 0 || !ctx.HasAttr("axis")) return out;
  const int64_t rank = static_cast<int64_t>(a.size());
  const int64_t axis = NormalizeAxis(ctx.GetInt("axis", 0), std::max<int64_t>(rank, 1));
  if (axis + static_cast<int64_t>(b.size()) > rank) Invalid("broadcast axis leaves no room for B's dimensions");
  out.resize(static_cast<size_t>(rank - axis), 1);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Reductions
// ---------------------------------------------------------------------------------------------------------------

// The input's dims with the reduced axes set to 1 (the keepdims shape), and the output shape.
struct ReduceShape {
  Dims keep_dims;
  Dims out_dims;
};

inline ReduceShape MakeReduceShape(std::span<const int64_t> dims, std::span<const int64_t> axes, bool keepdims) {
  ReduceShape s;
  s.keep_dims.assign(dims.begin(), dims.end());
  for (int64_t a : axes) s.keep_dims[a] = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    bool reduced = std::find(axes.begin(), axes.end(), static_cast<int64_t>(i)) != axes.end();
    if (!reduced) s.out_dims.push_back(dims[i]);
    else if (keepdims) s.out_dims.push_back(1);
  }
  return s;
}

// Walks the input in order: f(in_offset, out_offset, n, out_stride) for each run of n input elements, which map to
// the output element out_offset (out_stride 0: the run is reduced into one element) or to n consecutive output
// elements (out_stride 1).
template <typename F>
void ForEachReduceRun(std::span<const int64_t> in_dims, std::span<const int64_t> keep_dims, F&& f) {
  // The keepdims shape broadcast to the input's: the plan's output offset is the input offset, operand 1's offset
  // is the output offset.
  BroadcastPlan<2> q = MakeBroadcastPlan<2>({in_dims, keep_dims});
  ForEachRun(q, [&](const std::array<int64_t, 2>& off, int64_t o, int64_t n, const std::array<int64_t, 2>& st) {
    f(o, off[1], n, st[1]);
  });
}

}  // namespace kiln::kernels::ew
