// The optimizer ops of the ai.onnx.preview.training domain (opset 1): Adagrad, Adam and Momentum (standard and
// nesterov), each updating any number of tensors at once. Inputs: R (learning rate), T (update count), then the
// X, G (and V, H) groups; outputs the updated groups in the same order.
#include "core/elem_types.h"
#include <kiln/kiln_plugin_parts.hpp>
#include "core/seq_util.h"

#include <cmath>
#include <string>
#include <vector>

namespace kiln::kernels {
namespace {

using seq::Invalid;

// Checks the input count (2 + groups * n) and returns n.
int64_t TensorCount(sdk::KernelContext& ctx, int64_t groups, const char* op) {
  const int64_t k = static_cast<int64_t>(ctx.InputCount()) - 2;
  if (k <= 0 || k % groups != 0)
    Invalid(std::string(op) + ": expects R, T and " + std::to_string(groups) + " groups of equal size");
  return k / groups;
}

template <typename Fn>
void ForEachTensor(sdk::KernelContext& ctx, int64_t n, int64_t in_groups, int64_t out_groups, const char* op, Fn&& fn) {
  for (int64_t i = 0; i < n; ++i) {
    sdk::TensorView x = ctx.RequiredInput(2 + i);
    for (int64_t gi = 1; gi < in_groups; ++gi)
      if (ctx.RequiredInput(2 + gi * n + i).ElementCount() != x.ElementCount())
        Invalid(std::string(op) + ": tensor " + std::to_string(i) + " has groups of different sizes");
    Dispatch<TypeList<float, double>>(x.ElemType(), [&]<typename T>() {
      std::vector<std::span<const T>> ins;
      for (int64_t gi = 0; gi < in_groups; ++gi) ins.push_back(seq::Data<T>(ctx.RequiredInput(2 + gi * n + i)));
      std::vector<std::span<T>> outs;
      for (int64_t go = 0; go < out_groups; ++go) {
        if (static_cast<size_t>(go * n + i) >= ctx.OutputCount()) Invalid(std::string(op) + ": missing outputs");
        outs.push_back(seq::AllocOut<T>(ctx, go * n + i, x.Dims()));
      }
      fn.template operator()<T>(ins, outs);
    });
  }
}

void Adagrad(sdk::KernelContext& ctx) {
  const double r = seq::ReadScalar<double>(ctx.RequiredInput(0), "R");
  const double t = static_cast<double>(seq::ReadScalar<int64_t>(ctx.RequiredInput(1), "T"));
  const double decay = ctx.GetFloat("decay_factor", 0.f), eps = ctx.GetFloat("epsilon", 1e-6f);
  const double norm = ctx.GetFloat("norm_coefficient", 0.f);
  const int64_t n = TensorCount(ctx, 3, "Adagrad");
  const double rr = r / (1 + t * decay);
  ForEachTensor(ctx, n, 3, 2, "Adagrad", [&]<typename T>(auto& in, auto& out) {
    for (size_t k = 0; k < in[0].size(); ++k) {
      const T x = in[0][k], g = static_cast<T>(norm) * x + in[1][k];
      const T h = in[2][k] + g * g;
      out[1][k] = h;
      out[0][k] = x - static_cast<T>(rr) * g / (std::sqrt(h) + static_cast<T>(eps));
    }
  });
}

void Adam(sdk::KernelContext& ctx) {
  const double r = seq::ReadScalar<double>(ctx.RequiredInput(0), "R");
  const int64_t t = seq::ReadScalar<int64_t>(ctx.RequiredInput(1), "T");
  const double alpha = ctx.GetFloat("alpha", 0.9f), beta = ctx.GetFloat("beta", 0.999f);
  const double eps = ctx.GetFloat("epsilon", 1e-6f), norm = ctx.GetFloat("norm_coefficient", 0.f);
  const double post = ctx.GetFloat("norm_coefficient_post", 0.f);
  const int64_t n = TensorCount(ctx, 4, "Adam");
  const double td = static_cast<double>(t);
  const double rr = t > 0 ? r * std::sqrt(1 - std::pow(beta, td)) / (1 - std::pow(alpha, td)) : r;
  ForEachTensor(ctx, n, 4, 3, "Adam", [&]<typename T>(auto& in, auto& out) {
    for (size_t k = 0; k < in[0].size(); ++k) {
      const T x = in[0][k], g = static_cast<T>(norm) * x + in[1][k];
      const T v = static_cast<T>(alpha) * in[2][k] + static_cast<T>(1 - alpha) * g;
      const T h = static_cast<T>(beta) * in[3][k] + static_cast<T>(1 - beta) * g * g;
      const T xn = x - static_cast<T>(rr) * (v / (std::sqrt(h) + static_cast<T>(eps)));
      out[0][k] = static_cast<T>(1 - post) * xn;
      out[1][k] = v;
      out[2][k] = h;
    }
  });
}

void Momentum(sdk::KernelContext& ctx) {
  const double r = seq::ReadScalar<double>(ctx.RequiredInput(0), "R");
  const int64_t t = seq::ReadScalar<int64_t>(ctx.RequiredInput(1), "T");
  if (!ctx.HasAttr("alpha") || !ctx.HasAttr("beta") || !ctx.HasAttr("norm_coefficient") || !ctx.HasAttr("mode"))
    Invalid("Momentum: alpha, beta, mode and norm_coefficient are required");
  const double alpha = ctx.GetFloat("alpha", 0.f), beta = ctx.GetFloat("beta", 0.f);
  const double norm = ctx.GetFloat("norm_coefficient", 0.f);
  const std::string mode = ctx.GetString("mode", "standard");
  if (mode != "standard" && mode != "nesterov") Invalid("Momentum: mode must be standard or nesterov");
  const bool nesterov = mode == "nesterov";
  const double beta_adj = t > 0 ? beta : 1.0;
  const int64_t n = TensorCount(ctx, 3, "Momentum");
  ForEachTensor(ctx, n, 3, 2, "Momentum", [&]<typename T>(auto& in, auto& out) {
    for (size_t k = 0; k < in[0].size(); ++k) {
      const T x = in[0][k], g = static_cast<T>(norm) * x + in[1][k];
      const T v = static_cast<T>(alpha) * in[2][k] + static_cast<T>(beta_adj) * g;
      out[1][k] = v;
      out[0][k] = nesterov ? x - static_cast<T>(r) * (g + static_cast<T>(alpha) * v) : x - static_cast<T>(r) * v;
    }
  });
}

}  // namespace
}  // namespace kiln::kernels

KILN_PLUGIN_PART(TrainingOptimizers) {
  constexpr std::string_view kDomain = "ai.onnx.preview.training";
  reg.AddKernelFn({.domain = kDomain, .op_type = "Adagrad", .since_version = 1}, kiln::kernels::Adagrad);
  reg.AddKernelFn({.domain = kDomain, .op_type = "Adam", .since_version = 1}, kiln::kernels::Adam);
  reg.AddKernelFn({.domain = kDomain, .op_type = "Momentum", .since_version = 1}, kiln::kernels::Momentum);
}
