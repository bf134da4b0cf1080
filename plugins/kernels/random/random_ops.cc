// The random generators: RandomUniform, RandomNormal, RandomUniformLike, RandomNormalLike, Bernoulli and
// Multinomial. All registered KILN_KERNEL_NONDETERMINISTIC, so constant folding never runs them. A 'seed'
// attribute seeds std::mt19937_64 (repeatable here, but never numpy's stream, so ONNX's expected outputs for
// these ops cannot be matched bit for bit); without one the seed comes from std::random_device.
#include <bit>
#include <cmath>
#include <random>

#include "core/elem_types.h"
#include <kiln/kiln_plugin_parts.hpp>
#include "core/tensor_util.h"

namespace {

namespace sdk = kiln::sdk;
using namespace kiln::kernels;
using namespace kiln::kernels::tx;

std::mt19937_64 MakeRng(sdk::KernelContext& ctx) {
  if (ctx.HasAttr("seed")) return std::mt19937_64(std::bit_cast<uint32_t>(ctx.GetFloat("seed", 0.0f)));
  return std::mt19937_64(std::random_device{}());
}

// Fills output 0 (elem, dims) with draws from dist.
template <typename Dist>
void FillRandom(sdk::KernelContext& ctx, int32_t elem, std::span<const int64_t> dims, Dist dist) {
  std::mt19937_64 rng = MakeRng(ctx);
  Dispatch<kFloatTypes>(elem, [&]<typename T>() {
    T* out = TypedOut<T>(ctx.AllocOutput(0, elem, dims));
    const int64_t n = NumElements(dims);
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(dist(rng));
  });
}

// Output element type and dims: from the attributes, or (the *Like ops) from the input.
struct Target {
  int32_t elem;
  Dims dims;
};

Target TargetOf(sdk::KernelContext& ctx, bool like) {
  if (like) {
    sdk::TensorView x = ctx.RequiredInput(0);
    return {static_cast<int32_t>(ctx.GetInt("dtype", x.ElemType())), Dims(x.Dims().begin(), x.Dims().end())};
  }
  if (!ctx.HasAttr("shape")) throw InvalidArg("the 'shape' attribute is required");
  return {static_cast<int32_t>(ctx.GetInt("dtype", KILN_ELEM_FLOAT)), ctx.GetInts("shape")};
}

template <bool kLike>
void RandomUniformKernel(sdk::KernelContext& ctx) {
  const Target t = TargetOf(ctx, kLike);
  const double low = ctx.GetFloat("low", 0.0f), high = ctx.GetFloat("high", 1.0f);
  if (!(low <= high)) throw InvalidArg("RandomUniform: low > high");
  FillRandom(ctx, t.elem, t.dims, std::uniform_real_distribution<double>(low, high));
}

template <bool kLike>
void RandomNormalKernel(sdk::KernelContext& ctx) {
  const Target t = TargetOf(ctx, kLike);
  const double mean = ctx.GetFloat("mean", 0.0f), scale = ctx.GetFloat("scale", 1.0f);
  if (!(scale > 0)) throw InvalidArg("RandomNormal: scale must be positive");
  FillRandom(ctx, t.elem, t.dims, std::normal_distribution<double>(mean, scale));
}

void BernoulliKernel(sdk::KernelContext& ctx) {
  sdk::TensorView p = ctx.RequiredInput(0);
  const int32_t elem = static_cast<int32_t>(ctx.GetInt("dtype", p.ElemType()));
  const int64_t n = p.ElementCount();
  std::vector<double> probs(static_cast<size_t>(n));
  Dispatch<kFloatTypes>(p.ElemType(), [&]<typename T>() {
    const T* src = TypedIn<T>(p);
    for (int64_t i = 0; i < n; ++i) probs[static_cast<size_t>(i)] = static_cast<double>(src[i]);
  });
  std::mt19937_64 rng = MakeRng(ctx);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  Dispatch<kAllPodTypes>(elem, [&]<typename T>() {
    T* out = TypedOut<T>(ctx.AllocOutput(0, elem, p.Dims()));
    for (int64_t i = 0; i < n; ++i) {
      const double q = probs[static_cast<size_t>(i)];
      if (!(q >= 0 && q <= 1)) throw InvalidArg("Bernoulli: probability outside [0, 1]");
      out[i] = static_cast<T>(uniform(rng) < q ? 1 : 0);
    }
  });
}

void MultinomialKernel(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  if (x.Rank() != 2) throw InvalidArg("Multinomial: the input must be [batch, classes]");
  const int64_t batch = x.Dims()[0], classes = x.Dims()[1];
  const int64_t samples = ctx.GetInt("sample_size", 1);
  const int32_t elem = static_cast<int32_t>(ctx.GetInt("dtype", KILN_ELEM_INT32));
  if (elem != KILN_ELEM_INT32 && elem != KILN_ELEM_INT64) throw InvalidArg("Multinomial: dtype must be int32 or int64");
  std::vector<double> logits(static_cast<size_t>(x.ElementCount()));
  Dispatch<kFloatTypes>(x.ElemType(), [&]<typename T>() {
    const T* src = TypedIn<T>(x);
    for (size_t i = 0; i < logits.size(); ++i) logits[i] = static_cast<double>(src[i]);
  });
  std::mt19937_64 rng = MakeRng(ctx);
  const int64_t dims[] = {batch, samples};
  sdk::MutableTensor out = ctx.AllocOutput(0, elem, dims);
  for (int64_t b = 0; b < batch; ++b) {
    // Unnormalised log-probabilities: weights exp(x - max).
    const double* row = logits.data() + b * classes;
    double top = -INFINITY;
    for (int64_t c = 0; c < classes; ++c) top = std::max(top, row[c]);
    std::vector<double> w(static_cast<size_t>(classes));
    for (int64_t c = 0; c < classes; ++c) w[static_cast<size_t>(c)] = std::exp(row[c] - top);
    std::discrete_distribution<int64_t> dist(w.begin(), w.end());
    for (int64_t s = 0; s < samples; ++s) {
      const int64_t v = dist(rng);
      if (elem == KILN_ELEM_INT32)
        TypedOut<int32_t>(out)[b * samples + s] = static_cast<int32_t>(v);
      else
        TypedOut<int64_t>(out)[b * samples + s] = v;
    }
  }
}

constexpr uint32_t kRandom = KILN_KERNEL_NONDETERMINISTIC | kThreadSafe;

}  // namespace

KILN_PLUGIN_PART(RandomOps) {
  reg.AddKernelFn({.op_type = "RandomUniform", .since_version = 1, .flags = kRandom}, RandomUniformKernel<false>);
  reg.AddKernelFn({.op_type = "RandomNormal", .since_version = 1, .flags = kRandom}, RandomNormalKernel<false>);
  reg.AddKernelFn({.op_type = "RandomUniformLike", .since_version = 1, .flags = kRandom}, RandomUniformKernel<true>);
  reg.AddKernelFn({.op_type = "RandomNormalLike", .since_version = 1, .flags = kRandom}, RandomNormalKernel<true>);
  reg.AddKernelFn({.op_type = "Bernoulli", .since_version = 15, .flags = kRandom}, BernoulliKernel);
  reg.AddKernelFn({.op_type = "Multinomial", .since_version = 7, .flags = kRandom}, MultinomialKernel);
}
