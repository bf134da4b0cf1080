// Activation functions: Relu, LeakyRelu, PRelu (slope broadcast to X), Elu, Selu, Celu, Sigmoid, HardSigmoid,
// HardSwish, Tanh, Softplus, Softsign, ThresholdedRelu and Shrink. Float16/bfloat16 compute in float.
#include "core/ew_unary.h"
#include <kiln/kiln_plugin_parts.hpp>

#include <cmath>

namespace kiln::kernels {
namespace {

using namespace ew;
using kReluTypes = TypeList<float, double, half, bfloat16, int8_t, int16_t, int32_t, int64_t>;

template <typename C>
C Sigmoid(C x) {
  // Split by sign so exp never overflows.
  if (x >= C(0)) return C(1) / (C(1) + std::exp(-x));
  C e = std::exp(x);
  return e / (C(1) + e);
}

// PRelu: y = x < 0 ? slope * x : x, slope broadcast to x. Before opset 7 a 1-D slope of X's channel count is per
// channel (axis 1), as the old PyTorch exporter emitted it.
void PRelu(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0), slope = ctx.RequiredInput(1);
  if (slope.ElemType() != x.ElemType()) Invalid("PRelu: slope's element type differs from X's");
  Dims slope_dims(slope.Dims().begin(), slope.Dims().end());
  if (ctx.OpsetVersion() < 7 && slope_dims.size() == 1 && x.Rank() >= 2 && slope_dims[0] == x.Dims()[1] &&
      slope_dims[0] != 1)
    slope_dims.resize(x.Rank() - 1, 1);
  BroadcastPlan<2> plan = MakeBroadcastPlan<2>({x.Dims(), slope_dims});
  if (plan.out_dims != Dims(x.Dims().begin(), x.Dims().end()))
    Invalid("PRelu: slope does not broadcast to X's shape");
  Dispatch<kReluTypes>(x.ElemType(), [&]<typename T>() {
    using C = Compute<T>;
    sdk::MutableTensor y = ctx.AllocOutput(0, x.ElemType(), x.Dims());
    BinaryLoop(plan, Data<T>(x), Data<T>(slope), MutData<T>(y), [](T a, T s) {
      C v = static_cast<C>(a);
      return v < C(0) ? static_cast<T>(static_cast<C>(s) * v) : a;
    });
  });
}

}  // namespace

KILN_PLUGIN_PART(EwActivations) {
  AddUnary<kReluTypes>(reg, "Relu", 1, NoAttrs([](auto x) { return x < decltype(x)(0) ? decltype(x)(0) : x; }));
  AddUnary<kFloatTypes>(reg, "LeakyRelu", 1, [](sdk::KernelContext& ctx) {
    const float alpha = ctx.GetFloat("alpha", 0.01f);
    return [alpha](auto x) { return x < 0 ? static_cast<decltype(x)>(alpha * x) : x; };
  });
  reg.AddKernelFn({.op_type = "PRelu", .since_version = 1, .elem_types = ElemTypes<kReluTypes>(), .flags = kFlags},
                  PRelu);
  AddUnary<kFloatTypes>(reg, "Elu", 1, [](sdk::KernelContext& ctx) {
    const float alpha = ctx.GetFloat("alpha", 1.0f);
    return [alpha](auto x) { return x < 0 ? static_cast<decltype(x)>(alpha * (std::exp(x) - 1)) : x; };
  });
  AddUnary<kFloatTypes>(reg, "Selu", 1, [](sdk::KernelContext& ctx) {
    const float alpha = ctx.GetFloat("alpha", 1.67326319217681884765625f);
    const float gamma = ctx.GetFloat("gamma", 1.05070102214813232421875f);
    return [alpha, gamma](auto x) {
      using C = decltype(x);
      return x > 0 ? static_cast<C>(gamma * x) : static_cast<C>(gamma * (alpha * std::exp(x) - alpha));
    };
  });
  AddUnary<kFloatTypes>(reg, "Celu", 12, [](sdk::KernelContext& ctx) {
    const float alpha = ctx.GetFloat("alpha", 1.0f);
    if (alpha == 0) Invalid("Celu: alpha must not be 0");
    return [alpha](auto x) {
      using C = decltype(x);
      C neg = static_cast<C>(alpha * (std::exp(x / alpha) - 1));
      return std::max(C(0), x) + std::min(C(0), neg);
    };
  });
  AddUnary<kFloatTypes>(reg, "Sigmoid", 1, NoAttrs([](auto x) { return Sigmoid(x); }));
  AddUnary<kFloatTypes>(reg, "HardSigmoid", 1, [](sdk::KernelContext& ctx) {
    const float alpha = ctx.GetFloat("alpha", 0.2f), beta = ctx.GetFloat("beta", 0.5f);
    return [alpha, beta](auto x) {
      using C = decltype(x);
      return std::max(C(0), std::min(C(1), static_cast<C>(alpha * x + beta)));
    };
  });
  AddUnary<kFloatTypes>(reg, "HardSwish", 14, NoAttrs([](auto x) {
                          using C = decltype(x);
                          return x * std::max(C(0), std::min(C(1), x / C(6) + C(0.5)));
                        }));
  AddUnary<kFloatTypes>(reg, "Tanh", 1, NoAttrs([](auto x) { return std::tanh(x); }));
  AddUnary<kFloatTypes>(reg, "Softplus", 1, NoAttrs([](auto x) {
                          // log(1 + exp(x)) without overflow for large x.
                          using C = decltype(x);
                          return x > C(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
                        }));
  AddUnary<kFloatTypes>(reg, "Softsign", 1, NoAttrs([](auto x) { return x / (decltype(x)(1) + std::abs(x)); }));
  AddUnary<kFloatTypes>(reg, "ThresholdedRelu", 10, [](sdk::KernelContext& ctx) {
    const float alpha = ctx.GetFloat("alpha", 1.0f);
    return [alpha](auto x) { return x <= alpha ? decltype(x)(0) : x; };  // NaN stays NaN
  });
  AddUnary<kNumericTypes>(reg, "Shrink", 9, [](sdk::KernelContext& ctx) {
    const double bias = ctx.GetFloat("bias", 0.0f), lambd = ctx.GetFloat("lambd", 0.5f);
    return [bias, lambd](auto x) {
      using C = decltype(x);
      const double v = static_cast<double>(x);
      if (v < -lambd) return static_cast<C>(v + bias);
      if (v > lambd) return static_cast<C>(v - bias);
      return C(0);
    };
  });
}

}  // namespace kiln::kernels
