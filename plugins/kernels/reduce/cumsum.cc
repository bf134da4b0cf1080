// CumSum: running sums along the axis given as input 1 (a scalar or one-element int32/int64 tensor), optionally
// exclusive (each sum leaves out its own element) and/or reversed (sums run from the end).
#include "core/ew_util.h"
#include <kiln/kiln_plugin_parts.hpp>

#include <vector>

namespace kiln::kernels {
namespace {

using namespace ew;

void CumSum(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0), axis_t = ctx.RequiredInput(1);
  if (axis_t.ElementCount() != 1) Invalid("CumSum: axis must be a scalar");
  const int64_t rank = static_cast<int64_t>(x.Rank());
  if (rank == 0) Invalid("CumSum: input must have rank 1 or more");
  const int64_t axis = NormalizeAxis(ToInt64s(axis_t)[0], rank);
  const bool exclusive = ctx.GetInt("exclusive", 0) != 0, reverse = ctx.GetInt("reverse", 0) != 0;
  std::span<const int64_t> dims = x.Dims();
  const int64_t outer = Product(dims, 0, axis), n = dims[axis], inner = Product(dims, axis + 1, rank);
  sdk::MutableTensor y = ctx.AllocOutput(0, x.ElemType(), dims);
  Dispatch<kNumericTypes>(x.ElemType(), [&]<typename T>() {
    using C = Compute<T>;
    const T* in = Data<T>(x);
    T* out = MutData<T>(y);
    std::vector<C> acc(static_cast<size_t>(inner));
    for (int64_t o = 0; o < outer; ++o) {
      std::fill(acc.begin(), acc.end(), C(0));
      for (int64_t s = 0; s < n; ++s) {
        const int64_t j = reverse ? n - 1 - s : s;
        const int64_t off = (o * n + j) * inner;
        for (int64_t i = 0; i < inner; ++i) {
          const C v = static_cast<C>(in[off + i]);
          if (exclusive) {
            out[off + i] = static_cast<T>(acc[i]);
            acc[i] = static_cast<C>(acc[i] + v);
          } else {
            acc[i] = static_cast<C>(acc[i] + v);
            out[off + i] = static_cast<T>(acc[i]);
          }
        }
      }
    }
  });
}

}  // namespace

KILN_PLUGIN_PART(ReduceCumSum) {
  reg.AddKernelFn({.op_type = "CumSum", .since_version = 11, .elem_types = ElemTypes<kNumericTypes>(), .flags = kFlags},
                  CumSum);
}

}  // namespace kiln::kernels
