// TopK: the K largest (or smallest) elements along an axis and their int64 indices. K is the `k` attribute
// before opset 10 and input 1 from 10 on; `largest` and `sorted` from 11. Equal values keep the lower index first;
// the output is always sorted.
#include "core/ew_util.h"
#include <kiln/kiln_plugin_parts.hpp>

#include <algorithm>
#include <numeric>
#include <vector>

namespace kiln::kernels {
namespace {

using namespace ew;

void TopK(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  const int64_t rank = static_cast<int64_t>(x.Rank());
  if (rank == 0) Invalid("TopK: input must have rank 1 or more");
  int64_t k;
  if (ctx.OpsetVersion() < 10) {
    k = ctx.GetInt("k", -1);
  } else {
    sdk::TensorView k_t = ctx.RequiredInput(1);
    if (k_t.ElementCount() != 1) Invalid("TopK: K must hold one value");
    k = ToInt64s(k_t)[0];
  }
  const int64_t axis = NormalizeAxis(ctx.GetInt("axis", -1), rank);
  const bool largest = ctx.GetInt("largest", 1) != 0;
  std::span<const int64_t> dims = x.Dims();
  const int64_t outer = Product(dims, 0, axis), n = dims[axis], inner = Product(dims, axis + 1, rank);
  if (k < 0 || k > n)
    Invalid("TopK: K = " + std::to_string(k) + " is out of range for an axis of " + std::to_string(n));
  Dims out_dims(dims.begin(), dims.end());
  out_dims[axis] = k;
  sdk::MutableTensor values = ctx.AllocOutput(0, x.ElemType(), out_dims);
  sdk::MutableTensor indices = ctx.AllocOutput(1, KILN_ELEM_INT64, out_dims);
  int64_t* out_idx = MutData<int64_t>(indices);
  Dispatch<kNumericTypes>(x.ElemType(), [&]<typename T>() {
    using C = Compute<T>;
    const T* in = Data<T>(x);
    T* out = MutData<T>(values);
    std::vector<C> line(static_cast<size_t>(n));
    std::vector<int64_t> order(static_cast<size_t>(n));
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t base = o * n * inner + i;
        for (int64_t j = 0; j < n; ++j) line[j] = static_cast<C>(in[base + j * inner]);
        std::iota(order.begin(), order.end(), 0);
        auto before = [&](int64_t a, int64_t b) {
          if (line[a] != line[b]) return largest ? line[a] > line[b] : line[a] < line[b];
          return a < b;
        };
        std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
        const int64_t out_base = o * k * inner + i;
        for (int64_t j = 0; j < k; ++j) {
          out[out_base + j * inner] = in[base + order[j] * inner];
          out_idx[out_base + j * inner] = order[j];
        }
      }
  });
}

}  // namespace

KILN_PLUGIN_PART(ReduceTopK) {
  reg.AddKernelFn({.op_type = "TopK", .since_version = 1, .elem_types = ElemTypes<kNumericTypes>(), .flags = kFlags},
                  TopK);
}

}  // namespace kiln::kernels
