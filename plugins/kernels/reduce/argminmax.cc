// ArgMax and ArgMin along one axis (keepdims, select_last_index from opset 12): int64 indices of the first (or
// last) extreme element.
#include "core/ew_util.h"
#include <kiln/kiln_plugin_parts.hpp>

#include <vector>

namespace kiln::kernels {
namespace {

using namespace ew;

template <bool kMax>
void ArgExtreme(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  const int64_t rank = static_cast<int64_t>(x.Rank());
  const int64_t axis = NormalizeAxis(ctx.GetInt("axis", 0), std::max<int64_t>(rank, 1));
  const bool keepdims = ctx.GetInt("keepdims", 1) != 0;
  const bool last = ctx.GetInt("select_last_index", 0) != 0;
  std::span<const int64_t> dims = x.Dims();
  Dims out_dims;
  for (int64_t i = 0; i < rank; ++i) {
    if (i != axis) out_dims.push_back(dims[i]);
    else if (keepdims) out_dims.push_back(1);
  }
  const int64_t outer = Product(dims, 0, axis), n = rank ? dims[axis] : 1, inner = Product(dims, axis + 1, rank);
  if (n == 0) Invalid(std::string(kMax ? "ArgMax" : "ArgMin") + ": the reduced axis is empty");
  sdk::MutableTensor y = ctx.AllocOutput(0, KILN_ELEM_INT64, out_dims);
  int64_t* out = MutData<int64_t>(y);
  Dispatch<kNumericTypes>(x.ElemType(), [&]<typename T>() {
    using C = Compute<T>;
    const T* in = Data<T>(x);
    std::vector<C> best(static_cast<size_t>(inner));
    for (int64_t o = 0; o < outer; ++o) {
      const T* base = in + o * n * inner;
      int64_t* idx = out + o * inner;
      for (int64_t i = 0; i < inner; ++i) {
        best[i] = static_cast<C>(base[i]);
        idx[i] = 0;
      }
      for (int64_t j = 1; j < n; ++j) {
        const T* row = base + j * inner;
        for (int64_t i = 0; i < inner; ++i) {
          const C v = static_cast<C>(row[i]);
          const bool better = kMax ? (last ? v >= best[i] : v > best[i]) : (last ? v <= best[i] : v < best[i]);
          if (better) {
            best[i] = v;
            idx[i] = j;
          }
        }
      }
    }
  });
}

}  // namespace

KILN_PLUGIN_PART(ReduceArgMinMax) {
  reg.AddKernelFn({.op_type = "ArgMax", .since_version = 1, .elem_types = ElemTypes<kNumericTypes>(), .flags = kFlags},
                  ArgExtreme<true>);
  reg.AddKernelFn({.op_type = "ArgMin", .since_version = 1, .elem_types = ElemTypes<kNumericTypes>(), .flags = kFlags},
                  ArgExtreme<false>);
}

}  // namespace kiln::kernels
