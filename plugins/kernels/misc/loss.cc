// The loss ops: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (opset 12, 13+). Input [N, C, d1..dk],
// integer target [N, d1..dk], optional class weights [C], ignore_index, reduction none / sum / mean (mean
// divides by the summed weights of the non-ignored targets). SoftmaxCrossEntropyLoss also returns the
// log-softmax over C as log_prob. Computed in double.
#include "core/elem_types.h"
#include <kiln/kiln_plugin_parts.hpp>
#include "core/seq_util.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace kiln::kernels {
namespace {

using seq::Invalid;

// logp: [N, C, D] log-probabilities (double). Writes output 0 with the loss.
template <typename T>
void WriteLoss(sdk::KernelContext& ctx, const char* op, const std::vector<double>& logp, int64_t N, int64_t C,
               int64_t D, const sdk::TensorView& target_t, const sdk::TensorView& weight_t) {
  const std::vector<int64_t> target = seq::ReadInts(target_t);
  if (static_cast<int64_t>(target.size()) != N * D) Invalid(std::string(op) + ": target shape does not match input");
  std::vector<double> weight;
  if (weight_t) {
    weight = seq::ReadAs<double>(weight_t);
    if (static_cast<int64_t>(weight.size()) != C) Invalid(std::string(op) + ": weight must have C elements");
  }
  std::optional<int64_t> ignore;
  if (ctx.HasAttr("ignore_index")) ignore = ctx.GetInt("ignore_index", 0);
  const std::string reduction = ctx.GetString("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    Invalid(std::string(op) + ": reduction must be none, sum or mean");
  std::vector<double> loss(N * D, 0.0);
  double wsum = 0, lsum = 0;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t d = 0; d < D; ++d) {
      const int64_t t = target[n * D + d];
      if (ignore && t == *ignore) continue;
      if (t < 0 || t >= C) Invalid(std::string(op) + ": target " + std::to_string(t) + " is out of range");
      const double w = weight.empty() ? 1.0 : weight[t];
      const double l = -logp[(n * C + t) * D + d] * w;
      loss[n * D + d] = l;
      lsum += l;
      wsum += w;
    }
  if (reduction == "none") {
    auto out = seq::AllocOut<T>(ctx, 0, target_t.Dims());
    for (size_t i = 0; i < loss.size(); ++i) out[i] = static_cast<T>(static_cast<Compute<T>>(loss[i]));
    return;
  }
  double v = lsum;
  if (reduction == "mean") v = (weight.empty() && !ignore) ? lsum / static_cast<double>(N * D) : lsum / wsum;
  auto out = seq::AllocOut<T>(ctx, 0, Dims{});
  out[0] = static_cast<T>(static_cast<Compute<T>>(v));
}

void CheckShapes(const char* op, const sdk::TensorView& x, int64_t& N, int64_t& C, int64_t& D) {
  if (x.Rank() < 2) Invalid(std::string(op) + ": input must have rank >= 2");
  N = x.Dims()[0];
  C = x.Dims()[1];
  D = 1;
  for (size_t i = 2; i < x.Rank(); ++i) D *= x.Dims()[i];
}

void Nll(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  int64_t N, C, D;
  CheckShapes("NegativeLogLikelihoodLoss", x, N, C, D);
  Dispatch<kFloatTypes>(x.ElemType(), [&]<typename T>() {
    std::vector<double> logp = seq::ReadAs<double>(x);
    WriteLoss<T>(ctx, "NegativeLogLikelihoodLoss", logp, N, C, D, ctx.RequiredInput(1), seq::OptionalInput(ctx, 2));
  });
}

void Sce(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  int64_t N, C, D;
  CheckShapes("SoftmaxCrossEntropyLoss", x, N, C, D);
  Dispatch<kFloatTypes>(x.ElemType(), [&]<typename T>() {
    std::vector<double> v = seq::ReadAs<double>(x);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t d = 0; d < D; ++d) {
        double m = -INFINITY;
        for (int64_t c = 0; c < C; ++c) m = std::max(m, v[(n * C + c) * D + d]);
        double s = 0;
        for (int64_t c = 0; c < C; ++c) s += std::exp(v[(n * C + c) * D + d] - m);
        const double lse = m + std::log(s);
        for (int64_t c = 0; c < C; ++c) v[(n * C + c) * D + d] -= lse;
      }
    WriteLoss<T>(ctx, "SoftmaxCrossEntropyLoss", v, N, C, D, ctx.RequiredInput(1), seq::OptionalInput(ctx, 2));
    if (ctx.OutputCount() > 1) {
      auto lp = seq::AllocOut<T>(ctx, 1, x.Dims());
      for (size_t i = 0; i < v.size(); ++i) lp[i] = static_cast<T>(static_cast<Compute<T>>(v[i]));
    }
  });
}

}  // namespace
}  // namespace kiln::kernels

KILN_PLUGIN_PART(Loss) {
  reg.AddKernelFn({.op_type = "NegativeLogLikelihoodLoss", .since_version = 12}, kiln::kernels::Nll);
  reg.AddKernelFn({.op_type = "SoftmaxCrossEntropyLoss", .since_version = 12}, kiln::kernels::Sce);
}
