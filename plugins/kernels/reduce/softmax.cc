// Softmax, LogSoftmax and Hardmax. Before opset 13 the input is coerced to 2-D at `axis` (default 1) and the op
// runs over the flattened trailing dimensions; from 13 it runs along the one axis `axis` (default -1).
// Max-subtracted, so large inputs do not overflow; Hardmax marks the first maximum.
#include "core/ew_util.h"
#include <kiln/kiln_plugin_parts.hpp>

#include <cmath>
#include <vector>

namespace kiln::kernels {
namespace {

using namespace ew;

enum class Kind { kSoftmax, kLogSoftmax, kHardmax };

// One softmax line of n elements at stride `stride`.
template <Kind kKind, typename T>
void Line(const T* in, T* out, int64_t n, int64_t stride, std::vector<Compute<T>>& tmp) {
  using C = Compute<T>;
  C max = static_cast<C>(in[0]);
  int64_t arg = 0;
  for (int64_t j = 1; j < n; ++j) {
    const C v = static_cast<C>(in[j * stride]);
    if (v > max) {
      max = v;
      arg = j;
    }
  }
  if constexpr (kKind == Kind::kHardmax) {
    for (int64_t j = 0; j < n; ++j) out[j * stride] = static_cast<T>(C(j == arg ? 1 : 0));
  } else {
    double sum = 0;
    for (int64_t j = 0; j < n; ++j) {
      tmp[j] = static_cast<C>(in[j * stride]) - max;
      if constexpr (kKind == Kind::kSoftmax) tmp[j] = std::exp(tmp[j]);
      sum += kKind == Kind::kSoftmax ? static_cast<double>(tmp[j]) : std::exp(static_cast<double>(tmp[j]));
    }
    if constexpr (kKind == Kind::kSoftmax) {
      const C scale = static_cast<C>(1.0 / sum);
      for (int64_t j = 0; j < n; ++j) out[j * stride] = static_cast<T>(tmp[j] * scale);
    } else {
      const C log_sum = static_cast<C>(std::log(sum));
      for (int64_t j = 0; j < n; ++j) out[j * stride] = static_cast<T>(tmp[j] - log_sum);
    }
  }
}

template <Kind kKind>
void Softmax(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  const int64_t rank = static_cast<int64_t>(x.Rank());
  std::span<const int64_t> dims = x.Dims();
  int64_t outer, n, inner;
  if (rank == 0) {
    outer = n = inner = 1;
  } else if (ctx.OpsetVersion() < 13) {
    int64_t axis = ctx.GetInt("axis", 1);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis > rank) Invalid("axis " + std::to_string(ctx.GetInt("axis", 1)) + " is out of range");
    outer = Product(dims, 0, axis);
    n = Product(dims, axis, rank);
    inner = 1;
  } else {
    const int64_t axis = NormalizeAxis(ctx.GetInt("axis", -1), rank);
    outer = Product(dims, 0, axis);
    n = dims[axis];
    inner = Product(dims, axis + 1, rank);
  }
  sdk::MutableTensor y = ctx.AllocOutput(0, x.ElemType(), dims);
  if (x.ElementCount() == 0) return;
  Dispatch<kFloatTypes>(x.ElemType(), [&]<typename T>() {
    const T* in = Data<T>(x);
    T* out = MutData<T>(y);
    std::vector<Compute<T>> tmp(static_cast<size_t>(n));
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t off = o * n * inner + i;
        Line<kKind, T>(in + off, out + off, n, inner, tmp);
      }
  });
}

}  // namespace

KILN_PLUGIN_PART(ReduceSoftmax) {
  const std::vector<int32_t> types = ElemTypes<kFloatTypes>();
  reg.AddKernelFn({.op_type = "Softmax", .since_version = 1, .elem_types = types, .flags = kFlags},
                  Softmax<Kind::kSoftmax>);
  reg.AddKernelFn({.op_type = "LogSoftmax", .since_version = 1, .elem_types = types, .flags = kFlags},
                  Softmax<Kind::kLogSoftmax>);
  reg.AddKernelFn({.op_type = "Hardmax", .since_version = 1, .elem_types = types, .flags = kFlags},
                  Softmax<Kind::kHardmax>);
}

}  // namespace kiln::kernels
