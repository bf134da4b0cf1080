// Unique (opset 11): the distinct elements (no axis: of the flattened input) or distinct slices along an axis,
// sorted or in order of first occurrence, with the optional outputs indices, inverse_indices and counts.
// Numeric types, bool and strings.
#include <numeric>

#include "core/elem_types.h"
#include <kiln/kiln_plugin_parts.hpp>
#include "core/tensor_util.h"

namespace {

namespace sdk = kiln::sdk;
using namespace kiln::kernels;
using namespace kiln::kernels::tx;

template <typename T>
int Compare(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, KilnString>) {
    std::string_view x(a.data, static_cast<size_t>(a.size)), y(b.data, static_cast<size_t>(b.size));
    return x.compare(y) < 0 ? -1 : (x == y ? 0 : 1);
  } else {
    return a < b ? -1 : (b < a ? 1 : 0);
  }
}

template <typename T>
void UniqueImpl(sdk::KernelContext& ctx, const sdk::TensorView& x, std::optional<int64_t> axis) {
  const T* src = static_cast<const T*>(x.Data());
  AxisSplit s;
  if (axis)
    s = SplitAt(x.Dims(), *axis);
  else
    s.axis = x.ElementCount();
  const int64_t n = s.axis, len = s.outer * s.inner;
  auto at = [&](int64_t slice, int64_t k) -> const T& {
    return src[(k / s.inner) * s.axis * s.inner + slice * s.inner + (k % s.inner)];
  };
  auto cmp = [&](int64_t a, int64_t b) {
    for (int64_t k = 0; k < len; ++k)
      if (int c = Compare(at(a, k), at(b, k))) return c;
    return 0;
  };
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return cmp(a, b) < 0; });
  // Groups of equal slices in sorted order: representative (first occurrence) and members.
  std::vector<int64_t> group_of(static_cast<size_t>(n)), first, counts;
  for (size_t i = 0; i < order.size(); ++i) {
    if (i == 0 || cmp(order[i - 1], order[i]) != 0) {
      first.push_back(order[i]);
      counts.push_back(0);
    }
    group_of[static_cast<size_t>(order[i])] = static_cast<int64_t>(first.size()) - 1;
    ++counts.back();
  }
  const size_t groups = first.size();
  std::vector<int64_t> rank(groups);  // output position of each group
  std::iota(rank.begin(), rank.end(), 0);
  if (ctx.GetInt("sorted", 1) == 0) {
    std::vector<int64_t> by_first(groups);
    std::iota(by_first.begin(), by_first.end(), 0);
    std::sort(by_first.begin(), by_first.end(),
              [&](int64_t a, int64_t b) { return first[static_cast<size_t>(a)] < first[static_cast<size_t>(b)]; });
    for (size_t p = 0; p < groups; ++p) rank[static_cast<size_t>(by_first[p])] = static_cast<int64_t>(p);
  }
  std::vector<int64_t> out_first(groups), out_counts(groups);
  for (size_t g = 0; g < groups; ++g) {
    out_first[static_cast<size_t>(rank[g])] = first[g];
    out_counts[static_cast<size_t>(rank[g])] = counts[g];
  }
  Dims y_dims;
  if (axis) {
    y_dims.assign(x.Dims().begin(), x.Dims().end());
    y_dims[static_cast<size_t>(*axis)] = static_cast<int64_t>(groups);
  } else {
    y_dims = {static_cast<int64_t>(groups)};
  }
  RawOut<T> y(ctx.AllocOutput(0, x.ElemType(), y_dims));
  T* dst = y.data();
  for (int64_t o = 0; o < s.outer; ++o)
    for (size_t p = 0; p < groups; ++p) {
      const T* from = src + (o * s.axis + out_first[p]) * s.inner;
      std::copy(from, from + s.inner, dst + (o * static_cast<int64_t>(groups) + static_cast<int64_t>(p)) * s.inner);
    }
  y.Commit();
  auto emit = [&](size_t index, const std::vector<int64_t>& v) {
    if (index >= ctx.OutputCount()) return;
    const int64_t dims[] = {static_cast<int64_t>(v.size())};
    std::ranges::copy(v, ctx.AllocOutput(index, KILN_ELEM_INT64, dims).MutableValues<int64_t>().begin());
  };
  emit(1, out_first);
  std::vector<int64_t> inverse(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    inverse[static_cast<size_t>(i)] = rank[static_cast<size_t>(group_of[static_cast<size_t>(i)])];
  emit(2, inverse);
  emit(3, out_counts);
}

void UniqueKernel(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  std::optional<int64_t> axis;
  if (ctx.HasAttr("axis")) axis = NormalizeAxis(ctx.GetInt("axis", 0), static_cast<int64_t>(x.Rank()));
  if (x.ElemType() == KILN_ELEM_STRING) return UniqueImpl<KilnString>(ctx, x, axis);
  Dispatch<kAllPodTypes>(x.ElemType(), [&]<typename T>() { UniqueImpl<T>(ctx, x, axis); });
}

}  // namespace

KILN_PLUGIN_PART(TensorUnique) {
  reg.AddKernelFn({.op_type = "Unique", .since_version = 11, .flags = kThreadSafe}, UniqueKernel);
}
