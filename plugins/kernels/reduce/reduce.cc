// The Reduce* ops: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2, ReduceLogSum,
// ReduceLogSumExp and ReduceSumSquare. Axes come from the `axes` attribute, or from input 1 where the op takes
// them as an input (ReduceSum from opset 13); empty axes reduce everything unless noop_with_empty_axes is set.
// Floating inputs accumulate in double, integers in 64 bits.
#include "core/ew_util.h"
#include <kiln/kiln_plugin_parts.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace kiln::kernels {
namespace {

using namespace ew;

enum class Op { kSum, kMean, kMax, kMin, kProd, kL1, kL2, kLogSum, kLogSumExp, kSumSquare };

template <typename C>
using Acc = std::conditional_t<std::is_floating_point_v<C>, double,
                               std::conditional_t<std::is_signed_v<C>, int64_t, uint64_t>>;

template <Op kOp, typename A>
A Init() {
  if constexpr (kOp == Op::kMax)
    return std::numeric_limits<A>::has_infinity ? -std::numeric_limits<A>::infinity() : std::numeric_limits<A>::lowest();
  else if constexpr (kOp == Op::kMin)
    return std::numeric_limits<A>::has_infinity ? std::numeric_limits<A>::infinity() : std::numeric_limits<A>::max();
  else if constexpr (kOp == Op::kProd) return A(1);
  else return A(0);
}

template <Op kOp, typename A>
A Combine(A acc, A v) {
  if constexpr (kOp == Op::kMax) return v > acc || v != v ? v : acc;
  else if constexpr (kOp == Op::kMin) return v < acc || v != v ? v : acc;
  else if constexpr (kOp == Op::kProd) return acc * v;
  else if constexpr (kOp == Op::kL1) return acc + (v < A(0) ? A(0) - v : v);
  else if constexpr (kOp == Op::kL2 || kOp == Op::kSumSquare) return acc + v * v;
  else return acc + v;
}

// acc[o] = Combine(acc[o], map(x, o)) over every input element x and the output element o it reduces into.
template <Op kOp, typename T, typename A, typename Map>
void Accumulate(const T* x, std::span<const int64_t> dims, std::span<const int64_t> keep_dims, A* acc, Map map) {
  ForEachReduceRun(dims, keep_dims, [&](int64_t in_off, int64_t out_off, int64_t n, int64_t st) {
    const T* p = x + in_off;
    if (st == 0) {
      A a = acc[out_off];
      for (int64_t i = 0; i < n; ++i) a = Combine<kOp, A>(a, map(p[i], out_off));
      acc[out_off] = a;
    } else {
      A* q = acc + out_off;
      for (int64_t i = 0; i < n; ++i) q[i] = Combine<kOp, A>(q[i], map(p[i], out_off + i));
    }
  });
}

std::vector<int64_t> ReadAxes(const sdk::KernelContext& ctx) {
  if (ctx.InputCount() > 1) {
    sdk::TensorView axes = ctx.Input(1);
    if (axes) return ToInt64s(axes);
  }
  return ctx.GetInts("axes");
}

template <Op kOp>
void Reduce(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  const int64_t rank = static_cast<int64_t>(x.Rank());
  std::vector<int64_t> axes = ReadAxes(ctx);
  const bool keepdims = ctx.GetInt("keepdims", 1) != 0;
  if (axes.empty()) {
    if (ctx.GetInt("noop_with_empty_axes", 0) != 0) {
      // Nothing to reduce: the input as it is.
      sdk::MutableTensor y = ctx.AllocOutput(0, x.ElemType(), x.Dims());
      if (x.ByteSize()) std::memcpy(y.MutableData(), x.Data(), x.ByteSize());
      return;
    }
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  axes = NormalizeAxes(axes, rank);
  const ReduceShape shape = MakeReduceShape(x.Dims(), axes, keepdims);
  const int64_t out_count = NumElements(shape.out_dims);
  const int64_t group = out_count == 0 ? 0 : x.ElementCount() / std::max<int64_t>(out_count, 1);
  Dispatch<kNumericTypes>(x.ElemType(), [&]<typename T>() {
    using C = Compute<T>;
    using A = Acc<C>;
    const T* in = Data<T>(x);
    sdk::MutableTensor y = ctx.AllocOutput(0, x.ElemType(), shape.out_dims);
    T* out = MutData<T>(y);
    auto plain = [](T v, int64_t) { return static_cast<A>(static_cast<C>(v)); };
    if constexpr (kOp == Op::kLogSumExp) {
      // log(sum(exp(x - m))) + m with m the maximum, so exp never overflows.
      std::vector<A> max(static_cast<size_t>(out_count), Init<Op::kMax, A>());
      Accumulate<Op::kMax>(in, x.Dims(), shape.keep_dims, max.data(), plain);
      for (A& m : max)
        if (!std::isfinite(static_cast<double>(m))) m = A(0);
      std::vector<A> sum(static_cast<size_t>(out_count), A(0));
      Accumulate<Op::kSum>(in, x.Dims(), shape.keep_dims, sum.data(), [&](T v, int64_t o) {
        return static_cast<A>(std::exp(static_cast<double>(static_cast<C>(v)) - static_cast<double>(max[o])));
      });
      for (int64_t o = 0; o < out_count; ++o)
        out[o] = static_cast<T>(static_cast<C>(std::log(static_cast<double>(sum[o])) + static_cast<double>(max[o])));
    } else {
      std::vector<A> acc(static_cast<size_t>(out_count), Init<kOp, A>());
      Accumulate<kOp>(in, x.Dims(), shape.keep_dims, acc.data(), plain);
      for (int64_t o = 0; o < out_count; ++o) {
        A a = acc[o];
        if constexpr (kOp == Op::kMean) a = group ? static_cast<A>(a / static_cast<A>(group)) : a;
        if constexpr (kOp == Op::kL2) a = static_cast<A>(std::sqrt(static_cast<double>(a)));
        if constexpr (kOp == Op::kLogSum) a = static_cast<A>(std::log(static_cast<double>(a)));
        out[o] = static_cast<T>(static_cast<C>(a));
      }
    }
  });
}

}  // namespace

KILN_PLUGIN_PART(ReduceOps) {
  const std::vector<int32_t> types = ElemTypes<kNumericTypes>();
  auto add = [&](std::string_view op, void (*fn)(sdk::KernelContext&)) {
    reg.AddKernelFn({.op_type = op, .since_version = 1, .elem_types = types, .flags = kFlags}, fn);
  };
  add("ReduceSum", Reduce<Op::kSum>);
  add("ReduceMean", Reduce<Op::kMean>);
  add("ReduceMax", Reduce<Op::kMax>);
  add("ReduceMin", Reduce<Op::kMin>);
  add("ReduceProd", Reduce<Op::kProd>);
  add("ReduceL1", Reduce<Op::kL1>);
  add("ReduceL2", Reduce<Op::kL2>);
  add("ReduceLogSum", Reduce<Op::kLogSum>);
  add("ReduceLogSumExp", Reduce<Op::kLogSumExp>);
  add("ReduceSumSquare", Reduce<Op::kSumSquare>);
}

}  // namespace kiln::kernels
