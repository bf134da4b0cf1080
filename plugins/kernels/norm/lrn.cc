// LRN (local response normalisation across channels): y = x / (bias + alpha / size * sum of x^2 over the window of
// `size` channels around c, [c - floor((size-1)/2), c + ceil((size-1)/2)]) ^ beta, for X of shape [N, C, ...].
#include "core/ew_util.h"
#include <kiln/kiln_plugin_parts.hpp>

#include <cmath>
#include <vector>

namespace kiln::kernels {
namespace {

using namespace ew;

void Lrn(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  if (x.Rank() < 2) Invalid("LRN: X must have rank 2 or more");
  const int64_t size = ctx.GetInt("size", 0);
  if (size <= 0) Invalid("LRN: attribute 'size' must be positive");
  const double alpha = ctx.GetFloat("alpha", 1e-4f), beta = ctx.GetFloat("beta", 0.75f);
  const double bias = ctx.GetFloat("bias", 1.0f);
  std::span<const int64_t> dims = x.Dims();
  const int64_t n = dims[0], c = dims[1], s = Product(dims, 2, dims.size());
  const int64_t before = (size - 1) / 2, after = size - 1 - before;
  sdk::MutableTensor y = ctx.AllocOutput(0, x.ElemType(), dims);
  Dispatch<kFloatTypes>(x.ElemType(), [&]<typename T>() {
    using C = Compute<T>;
    const T* in = Data<T>(x);
    T* out = MutData<T>(y);
    std::vector<double> sq(static_cast<size_t>(c * s)), sum(static_cast<size_t>(s));
    for (int64_t i = 0; i < n; ++i) {
      const int64_t base = i * c * s;
      for (int64_t k = 0; k < c * s; ++k) {
        const double v = static_cast<double>(static_cast<C>(in[base + k]));
        sq[k] = v * v;
      }
      for (int64_t j = 0; j < c; ++j) {
        std::fill(sum.begin(), sum.end(), 0.0);
        for (int64_t w = std::max<int64_t>(0, j - before); w <= std::min(c - 1, j + after); ++w)
          for (int64_t k = 0; k < s; ++k) sum[k] += sq[w * s + k];
        for (int64_t k = 0; k < s; ++k) {
          const double v = static_cast<double>(static_cast<C>(in[base + j * s + k]));
          out[base + j * s + k] = static_cast<T>(static_cast<C>(v / std::pow(bias + alpha / size * sum[k], beta)));
        }
      }
    }
  });
}

}  // namespace

KILN_PLUGIN_PART(NormLrn) {
  reg.AddKernelFn({.op_type = "LRN", .since_version = 1, .elem_types = ElemTypes<kFloatTypes>(), .flags = kFlags},
                  Lrn);
}

}  // namespace kiln::kernels
