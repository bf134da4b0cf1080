// Normalisation over trailing or chosen axes: LayerNormalization (opset 17: Y, and the optional Mean and
// InvStdDev outputs), MeanVarianceNormalization ((X - E[X]) / (sqrt(E[X^2] - E[X]^2) + 1e-9) over `axes`) and
// LpNormalization (X / ||X||_p along one axis, p = 1 or 2). Statistics in double.
#include "core/ew_util.h"
#include <kiln/kiln_plugin_parts.hpp>

#include <cmath>
#include <vector>

namespace kiln::kernels {
namespace {

using namespace ew;

// A parameter tensor broadcast (unidirectionally) to `dims`, as doubles.
std::vector<double> Expand(const sdk::TensorView& t, std::span<const int64_t> dims, const char* what) {
  std::vector<double> src = ToDoubles(t);
  BroadcastPlan<2> plan = MakeBroadcastPlan<2>({dims, t.Dims()});
  if (plan.out_dims != Dims(dims.begin(), dims.end()))
    Invalid(std::string("LayerNormalization: ") + what + " does not broadcast to the normalised shape");
  std::vector<double> out(static_cast<size_t>(plan.count));
  BinaryLoop(plan, out.data(), src.data(), out.data(), [](double, double v) { return v; });
  return out;
}

void LayerNorm(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  const int64_t rank = static_cast<int64_t>(x.Rank());
  if (rank == 0) Invalid("LayerNormalization: X must have rank 1 or more");
  const int64_t axis = NormalizeAxis(ctx.GetInt("axis", -1), rank);
  std::span<const int64_t> dims = x.Dims();
  const int64_t outer = Product(dims, 0, axis), inner = Product(dims, axis, rank);
  const double eps = ctx.GetFloat("epsilon", 1e-5f);
  std::vector<double> scale = Expand(ctx.RequiredInput(1), dims.subspan(axis), "Scale");
  std::vector<double> bias;
  if (ctx.InputCount() > 2 && ctx.Input(2)) bias = Expand(ctx.Input(2), dims.subspan(axis), "B");
  std::vector<double> mean(static_cast<size_t>(outer)), inv_std(static_cast<size_t>(outer));
  sdk::MutableTensor y = ctx.AllocOutput(0, x.ElemType(), dims);
  Dispatch<kFloatTypes>(x.ElemType(), [&]<typename T>() {
    using C = Compute<T>;
    const T* in = Data<T>(x);
    T* out = MutData<T>(y);
    for (int64_t o = 0; o < outer; ++o) {
      const T* p = in + o * inner;
      T* q = out + o * inner;
      double sum = 0, sum_sq = 0;
      for (int64_t i = 0; i < inner; ++i) {
        const double v = static_cast<double>(static_cast<C>(p[i]));
        sum += v;
        sum_sq += v * v;
      }
      const double m = inner ? sum / inner : 0.0;
      const double var = inner ? std::max(0.0, sum_sq / inner - m * m) : 0.0;
      const double r = 1.0 / std::sqrt(var + eps);
      mean[o] = m;
      inv_std[o] = r;
      for (int64_t i = 0; i < inner; ++i) {
        double v = (static_cast<double>(static_cast<C>(p[i])) - m) * r * scale[i];
        if (!bias.empty()) v += bias[i];
        q[i] = static_cast<T>(static_cast<C>(v));
      }
    }
  });
  // Mean and InvStdDev: X's leading dimensions, 1 for each normalised one; float (stash_type 1) or X's type.
  Dims stat_dims(dims.begin(), dims.end());
  for (int64_t i = axis; i < rank; ++i) stat_dims[i] = 1;
  const int32_t stat_type = ctx.GetInt("stash_type", 1) == 1 ? KILN_ELEM_FLOAT : x.ElemType();
  for (size_t k = 1; k < 3 && k < ctx.OutputCount(); ++k) {
    sdk::MutableTensor t = ctx.AllocOutput(k, stat_type, stat_dims);
    const std::vector<double>& src = k == 1 ? mean : inv_std;
    Dispatch<kFloatTypes>(stat_type, [&]<typename T>() {
      T* p = MutData<T>(t);
      for (size_t i = 0; i < src.size(); ++i) p[i] = static_cast<T>(static_cast<Compute<T>>(src[i]));
    });
  }
}

void MeanVarianceNorm(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  const int64_t rank = static_cast<int64_t>(x.Rank());
  std::vector<int64_t> axes = NormalizeAxes(ctx.GetInts("axes", {0, 2, 3}), rank);
  const ReduceShape shape = MakeReduceShape(x.Dims(), axes, true);
  const int64_t groups = NumElements(shape.keep_dims);
  const double count = groups ? static_cast<double>(x.ElementCount()) / groups : 0.0;
  std::vector<double> sum(static_cast<size_t>(groups), 0.0), sum_sq(static_cast<size_t>(groups), 0.0);
  sdk::MutableTensor y = ctx.AllocOutput(0, x.ElemType(), x.Dims());
  Dispatch<kFloatTypes>(x.ElemType(), [&]<typename T>() {
    using C = Compute<T>;
    const T* in = Data<T>(x);
    T* out = MutData<T>(y);
    ForEachReduceRun(x.Dims(), shape.keep_dims, [&](int64_t in_off, int64_t o, int64_t n, int64_t st) {
      for (int64_t i = 0; i < n; ++i) {
        const double v = static_cast<double>(static_cast<C>(in[in_off + i]));
        sum[o + i * st] += v;
        sum_sq[o + i * st] += v * v;
      }
    });
    for (int64_t g = 0; g < groups; ++g) {
      const double m = sum[g] / count;
      sum[g] = m;
      sum_sq[g] = std::sqrt(std::max(0.0, sum_sq[g] / count - m * m)) + 1e-9;  // the divisor
    }
    ForEachReduceRun(x.Dims(), shape.keep_dims, [&](int64_t in_off, int64_t o, int64_t n, int64_t st) {
      for (int64_t i = 0; i < n; ++i) {
        const double v = static_cast<double>(static_cast<C>(in[in_off + i]));
        out[in_off + i] = static_cast<T>(static_cast<C>((v - sum[o + i * st]) / sum_sq[o + i * st]));
      }
    });
  });
}

void LpNorm(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  const int64_t rank = static_cast<int64_t>(x.Rank());
  if (rank == 0) Invalid("LpNormalization: X must have rank 1 or more");
  const int64_t axis = NormalizeAxis(ctx.GetInt("axis", -1), rank);
  const int64_t p = ctx.GetInt("p", 2);
  if (p != 1 && p != 2) Invalid("LpNormalization: p must be 1 or 2, not " + std::to_string(p));
  std::span<const int64_t> dims = x.Dims();
  const int64_t outer = Product(dims, 0, axis), n = dims[axis], inner = Product(dims, axis + 1, rank);
  sdk::MutableTensor y = ctx.AllocOutput(0, x.ElemType(), dims);
  Dispatch<kFloatTypes>(x.ElemType(), [&]<typename T>() {
    using C = Compute<T>;
    const T* in = Data<T>(x);
    T* out = MutData<T>(y);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t base = o * n * inner + i;
        double norm = 0;
        for (int64_t j = 0; j < n; ++j) {
          const double v = static_cast<double>(static_cast<C>(in[base + j * inner]));
          norm += p == 1 ? std::abs(v) : v * v;
        }
        if (p == 2) norm = std::sqrt(norm);
        for (int64_t j = 0; j < n; ++j) {
          const double v = static_cast<double>(static_cast<C>(in[base + j * inner]));
          out[base + j * inner] = static_cast<T>(static_cast<C>(norm == 0 ? 0.0 : v / norm));
        }
      }
  });
}

}  // namespace

KILN_PLUGIN_PART(NormLayer) {
  const std::vector<int32_t> types = ElemTypes<kFloatTypes>();
  reg.AddKernelFn({.op_type = "LayerNormalization", .since_version = 17, .elem_types = types, .flags = kFlags},
                  LayerNorm);
  reg.AddKernelFn({.op_type = "MeanVarianceNormalization", .since_version = 9, .elem_types = types, .flags = kFlags},
                  MeanVarianceNorm);
  reg.AddKernelFn({.op_type = "LpNormalization", .since_version = 1, .elem_types = types, .flags = kFlags}, LpNorm);
}

}  // namespace kiln::kernels
