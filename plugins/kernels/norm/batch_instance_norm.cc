// BatchNormalization (inference, and training mode: batch statistics plus the running mean/variance outputs) and
// InstanceNormalization. Statistics and per-channel parameters in double; scale, bias, mean and variance may have
// element types of their own (opset 15). Before opset 9, `spatial` = 0 gives one parameter per channel and position.
#include "core/ew_util.h"
#include <kiln/kiln_plugin_parts.hpp>

#include <cmath>
#include <vector>

namespace kiln::kernels {
namespace {

using namespace ew;

// Writes values into a fresh output of the given element type.
void StoreDoubles(sdk::KernelContext& ctx, size_t index, int32_t elem, std::span<const int64_t> dims,
                  const std::vector<double>& values) {
  sdk::MutableTensor t = ctx.AllocOutput(index, elem, dims);
  Dispatch<kFloatTypes>(elem, [&]<typename T>() {
    T* p = MutData<T>(t);
    for (size_t i = 0; i < values.size(); ++i) p[i] = static_cast<T>(static_cast<Compute<T>>(values[i]));
  });
}

// y[n, c, s] = x[n, c, s] * a[c] + b[c] over X viewed as [N, C, S].
void ScaleShift(const sdk::TensorView& x, sdk::MutableTensor& y, int64_t n, int64_t c, int64_t s,
                const std::vector<double>& a, const std::vector<double>& b) {
  Dispatch<kFloatTypes>(x.ElemType(), [&]<typename T>() {
    using C = Compute<T>;
    const T* in = Data<T>(x);
    T* out = MutData<T>(y);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < c; ++j) {
        const C aj = static_cast<C>(a[j]), bj = static_cast<C>(b[j]);
        const int64_t off = (i * c + j) * s;
        for (int64_t k = 0; k < s; ++k) out[off + k] = static_cast<T>(static_cast<C>(in[off + k]) * aj + bj);
      }
  });
}

// Mean and (biased) variance of each channel of X viewed as [N, C, S], over N and S, or over S alone per (n, c)
// when per_instance.
void Moments(const sdk::TensorView& x, int64_t n, int64_t c, int64_t s, bool per_instance, std::vector<double>& mean,
             std::vector<double>& var) {
  const size_t groups = static_cast<size_t>(per_instance ? n * c : c);
  mean.assign(groups, 0.0);
  var.assign(groups, 0.0);
  std::vector<double> sq(groups, 0.0);
  Dispatch<kFloatTypes>(x.ElemType(), [&]<typename T>() {
    const T* in = Data<T>(x);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < c; ++j) {
        const size_t g = static_cast<size_t>(per_instance ? i * c + j : j);
        const T* p = in + (i * c + j) * s;
        double sum = 0, sum_sq = 0;
        for (int64_t k = 0; k < s; ++k) {
          const double v = static_cast<double>(static_cast<Compute<T>>(p[k]));
          sum += v;
          sum_sq += v * v;
        }
        mean[g] += sum;
        sq[g] += sum_sq;
      }
  });
  const double count = static_cast<double>(per_instance ? s : n * s);
  for (size_t g = 0; g < groups; ++g) {
    mean[g] = count ? mean[g] / count : 0.0;
    var[g] = count ? std::max(0.0, sq[g] / count - mean[g] * mean[g]) : 0.0;
  }
}

void BatchNorm(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  if (x.Rank() < 2) Invalid("BatchNormalization: X must have rank 2 or more");
  std::span<const int64_t> dims = x.Dims();
  int64_t n = dims[0], c = dims[1], s = Product(dims, 2, dims.size());
  std::vector<double> scale = ToDoubles(ctx.RequiredInput(1)), bias = ToDoubles(ctx.RequiredInput(2));
  sdk::TensorView mean_t = ctx.RequiredInput(3), var_t = ctx.RequiredInput(4);
  std::vector<double> mean = ToDoubles(mean_t), var = ToDoubles(var_t);
  if (static_cast<int64_t>(scale.size()) == c * s && s != 1) {  // spatial = 0: a parameter per channel and position
    c *= s;
    s = 1;
  }
  for (const auto* p : {&scale, &bias, &mean, &var})
    if (static_cast<int64_t>(p->size()) != c)
      Invalid("BatchNormalization: scale, B, mean and var must have " + std::to_string(c) + " elements");
  const double eps = ctx.GetFloat("epsilon", 1e-5f);
  const double momentum = ctx.GetFloat("momentum", 0.9f);
  const int64_t opset = ctx.OpsetVersion();
  const bool training = opset >= 14 ? ctx.GetInt("training_mode", 0) != 0
                                    : ctx.OutputCount() > 1 && (opset >= 7 || ctx.GetInt("is_test", 0) == 0);
  std::vector<double> use_mean = mean, use_var = var;
  if (training) Moments(x, n, c, s, false, use_mean, use_var);
  std::vector<double> a(static_cast<size_t>(c)), b(static_cast<size_t>(c));
  for (int64_t j = 0; j < c; ++j) {
    a[j] = scale[j] / std::sqrt(use_var[j] + eps);
    b[j] = bias[j] - use_mean[j] * a[j];
  }
  sdk::MutableTensor y = ctx.AllocOutput(0, x.ElemType(), dims);
  ScaleShift(x, y, n, c, s, a, b);
  if (!training) return;
  std::vector<double> running_mean(static_cast<size_t>(c)), running_var(static_cast<size_t>(c));
  for (int64_t j = 0; j < c; ++j) {
    running_mean[j] = mean[j] * momentum + use_mean[j] * (1 - momentum);
    running_var[j] = var[j] * momentum + use_var[j] * (1 - momentum);
  }
  const size_t outputs = ctx.OutputCount();
  if (outputs > 1) StoreDoubles(ctx, 1, mean_t.ElemType(), mean_t.Dims(), running_mean);
  if (outputs > 2) StoreDoubles(ctx, 2, var_t.ElemType(), var_t.Dims(), running_var);
  if (outputs > 3) StoreDoubles(ctx, 3, mean_t.ElemType(), mean_t.Dims(), use_mean);
  if (outputs > 4) StoreDoubles(ctx, 4, var_t.ElemType(), var_t.Dims(), use_var);
}

void InstanceNorm(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  if (x.Rank() < 2) Invalid("InstanceNormalization: X must have rank 2 or more");
  std::span<const int64_t> dims = x.Dims();
  const int64_t n = dims[0], c = dims[1], s = Product(dims, 2, dims.size());
  std::vector<double> scale = ToDoubles(ctx.RequiredInput(1)), bias = ToDoubles(ctx.RequiredInput(2));
  if (static_cast<int64_t>(scale.size()) != c || static_cast<int64_t>(bias.size()) != c)
    Invalid("InstanceNormalization: scale and B must have " + std::to_string(c) + " elements");
  const double eps = ctx.GetFloat("epsilon", 1e-5f);
  std::vector<double> mean, var;
  Moments(x, n, c, s, true, mean, var);
  // Per (n, c): fold the statistics into a scale and shift over X viewed as [N*C, 1, S].
  std::vector<double> a(static_cast<size_t>(n * c)), b(static_cast<size_t>(n * c));
  for (int64_t i = 0; i < n * c; ++i) {
    a[i] = scale[i % c] / std::sqrt(var[i] + eps);
    b[i] = bias[i % c] - mean[i] * a[i];
  }
  sdk::MutableTensor y = ctx.AllocOutput(0, x.ElemType(), dims);
  ScaleShift(x, y, 1, n * c, s, a, b);
}

}  // namespace

KILN_PLUGIN_PART(NormBatchInstance) {
  reg.AddKernelFn(
      {.op_type = "BatchNormalization", .since_version = 1, .elem_types = ElemTypes<kFloatTypes>(), .flags = kFlags},
      BatchNorm);
  reg.AddKernelFn(
      {.op_type = "InstanceNormalization", .since_version = 1, .elem_types = ElemTypes<kFloatTypes>(), .flags = kFlags},
      InstanceNorm);
}

}  // namespace kiln::kernels
