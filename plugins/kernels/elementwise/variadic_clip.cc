// Variadic element-wise ops with multidirectional broadcasting: Sum, Mean, Max, Min (one input or more), and Clip
// (bounds as attributes before opset 11, as optional inputs from 11 on).
#include "core/ew_util.h"
#include <kiln/kiln_plugin_parts.hpp>

#include <limits>
#include <string>
#include <vector>

namespace kiln::kernels {
namespace {

using namespace ew;

enum class Fold { kSum, kMean, kMax, kMin };

template <typename List, Fold kFold>
void Variadic(sdk::KernelContext& ctx) {
  const size_t n = ctx.InputCount();
  if (n == 0) Invalid("variadic op: needs at least one input");
  std::vector<sdk::TensorView> in;
  std::vector<std::span<const int64_t>> shapes;
  for (size_t i = 0; i < n; ++i) {
    in.push_back(ctx.RequiredInput(i));
    if (in[i].ElemType() != in[0].ElemType()) Invalid("variadic op: inputs have different element types");
    shapes.push_back(in[i].Dims());
  }
  const Dims out_dims = BroadcastShape(shapes);
  Dispatch<List>(in[0].ElemType(), [&]<typename T>() {
    using C = Compute<T>;
    sdk::MutableTensor y = ctx.AllocOutput(0, in[0].ElemType(), out_dims);
    T* out = MutData<T>(y);
    std::vector<C> buffer;
    C* acc;
    if constexpr (std::is_same_v<C, T>) {
      acc = out;
    } else {
      buffer.resize(static_cast<size_t>(NumElements(out_dims)));
      acc = buffer.data();
    }
    for (size_t k = 0; k < n; ++k) {
      const T* x = Data<T>(in[k]);
      BroadcastPlan<2> plan = MakeBroadcastPlan<2>({out_dims, in[k].Dims()});
      if (k == 0) {
        BinaryLoop(plan, acc, x, acc, [](C, T v) { return static_cast<C>(v); });
        continue;
      }
      BinaryLoop(plan, acc, x, acc, [](C a, T t) {
        const C v = static_cast<C>(t);
        // NaN propagates, as numpy's maximum/minimum.
        if constexpr (kFold == Fold::kMax) return v > a || v != v ? v : a;
        else if constexpr (kFold == Fold::kMin) return v < a || v != v ? v : a;
        else return static_cast<C>(a + v);
      });
    }
    const int64_t count = NumElements(out_dims);
    if constexpr (kFold == Fold::kMean)
      for (int64_t i = 0; i < count; ++i) acc[i] = static_cast<C>(acc[i] / static_cast<C>(n));
    if constexpr (!std::is_same_v<C, T>)
      for (int64_t i = 0; i < count; ++i) out[i] = static_cast<T>(acc[i]);
  });
}

// Clip: y = min(max(x, lo), hi); NaN passes through; lo > hi gives hi everywhere (numpy's clip).
void Clip(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  const bool attrs = ctx.OpsetVersion() < 11;
  sdk::TensorView lo_t = attrs || ctx.InputCount() < 2 ? sdk::TensorView() : ctx.Input(1);
  sdk::TensorView hi_t = attrs || ctx.InputCount() < 3 ? sdk::TensorView() : ctx.Input(2);
  for (const sdk::TensorView& t : {lo_t, hi_t}) {
    if (!t) continue;
    if (t.ElementCount() != 1) Invalid("Clip: min and max must be scalars");
    if (t.ElemType() != x.ElemType()) Invalid("Clip: min/max element type differs from the input's");
  }
  Dispatch<kNumericTypes>(x.ElemType(), [&]<typename T>() {
    using C = Compute<T>;
    C lo = std::numeric_limits<C>::lowest(), hi = std::numeric_limits<C>::max();
    if (attrs) {
      lo = static_cast<C>(ctx.GetFloat("min", -std::numeric_limits<float>::max()));
      hi = static_cast<C>(ctx.GetFloat("max", std::numeric_limits<float>::max()));
    }
    if (lo_t) lo = static_cast<C>(Data<T>(lo_t)[0]);
    if (hi_t) hi = static_cast<C>(Data<T>(hi_t)[0]);
    sdk::MutableTensor y = ctx.AllocOutput(0, x.ElemType(), x.Dims());
    const T* in = Data<T>(x);
    T* out = MutData<T>(y);
    const int64_t n = x.ElementCount();
    for (int64_t i = 0; i < n; ++i) {
      C v = static_cast<C>(in[i]);
      v = v < lo ? lo : v;
      v = v > hi ? hi : v;
      out[i] = static_cast<T>(v);
    }
  });
}

}  // namespace

KILN_PLUGIN_PART(EwVariadicClip) {
  reg.AddKernelFn({.op_type = "Sum", .since_version = 1, .elem_types = ElemTypes<kFloatTypes>(), .flags = kFlags},
                  Variadic<kFloatTypes, Fold::kSum>);
  reg.AddKernelFn({.op_type = "Mean", .since_version = 1, .elem_types = ElemTypes<kFloatTypes>(), .flags = kFlags},
                  Variadic<kFloatTypes, Fold::kMean>);
  reg.AddKernelFn({.op_type = "Max", .since_version = 1, .elem_types = ElemTypes<kNumericTypes>(), .flags = kFlags},
                  Variadic<kNumericTypes, Fold::kMax>);
  reg.AddKernelFn({.op_type = "Min", .since_version = 1, .elem_types = ElemTypes<kNumericTypes>(), .flags = kFlags},
                  Variadic<kNumericTypes, Fold::kMin>);
  reg.AddKernelFn({.op_type = "Clip", .since_version = 1, .elem_types = ElemTypes<kNumericTypes>(), .flags = kFlags},
                  Clip);
}

}  // namespace kiln::kernels
