// Det (opset 11): determinants of the trailing square matrices of [..., M, M], by Eigen's partial-pivot LU;
// float16/bfloat16 computed in float.
#include <kiln/kiln_plugin_parts.hpp>
#include "core/nn_util.h"

#include <Eigen/LU>

namespace kiln::kernels {
namespace {

using nn::Invalid;

void Det(sdk::KernelContext& ctx) {
  sdk::TensorView X = ctx.RequiredInput(0);
  std::span<const int64_t> d = X.Dims();
  if (d.size() < 2 || d[d.size() - 1] != d[d.size() - 2])
    Invalid("Det", "input must end in a square matrix, got " + nn::DimsStr(d));
  const int64_t n = d.back();
  Dims yd(d.begin(), d.end() - 2);
  sdk::MutableTensor Y = ctx.AllocOutput(0, X.ElemType(), yd);
  Dispatch<kFloatTypes>(X.ElemType(), [&]<typename T>() {
    using C = Compute<T>;
    const T* x = nn::In<T>(X);
    T* y = nn::Out<T>(Y);
    nn::RowMat<C> m(n, n);
    for (int64_t b = 0; b < NumElements(yd); ++b) {
      for (int64_t i = 0; i < n * n; ++i) m.data()[i] = static_cast<C>(x[b * n * n + i]);
      y[b] = static_cast<T>(n == 0 ? C(1) : m.partialPivLu().determinant());
    }
  });
}

}  // namespace
}  // namespace kiln::kernels

KILN_PLUGIN_PART(Det) {
  using namespace kiln::kernels;
  reg.AddKernelFn({.op_type = "Det", .since_version = 11,
                   .elem_types = {KILN_ELEM_FLOAT, KILN_ELEM_DOUBLE, KILN_ELEM_FLOAT16, KILN_ELEM_BFLOAT16}},
                  Det);
}
