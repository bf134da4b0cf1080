// Dropout. Inference (every opset; training_mode absent or false from opset 12, or ratio 0): output = input and
// the mask all true (bool from opset 10, the data's type before). Training with a non-zero ratio drops elements
// at random and scales the rest by 1/(1-ratio): that kernel is registered separately with
// KILN_KERNEL_NONDETERMINISTIC for opset 12+ (the deterministic one answers Unsupported for it), so constant
// folding never uses it. (The host counts an op at an opset as nondeterministic when any kernel of it is, so
// Dropout-12+ is never folded; opset < 12 has no training mode here: is_test=0 before opset 7 is Unsupported.)
// The 'seed' attribute seeds std::mt19937_64, so the draws cannot match numpy's.
#include <random>

#include "core/elem_types.h"
#include <kiln/kiln_plugin_parts.hpp>
#include "core/tensor_util.h"

namespace {

namespace sdk = kiln::sdk;
using namespace kiln::kernels;
using namespace kiln::kernels::tx;

struct DropoutArgs {
  bool training = false;
  double ratio = 0.5;
};

DropoutArgs ReadArgs(sdk::KernelContext& ctx) {
  DropoutArgs a;
  const int64_t opset = ctx.OpsetVersion();
  if (opset < 12) {
    a.ratio = ctx.GetFloat("ratio", 0.5f);
    a.training = opset < 7 && ctx.HasAttr("is_test") && ctx.GetInt("is_test", 0) == 0;
    return a;
  }
  if (sdk::TensorView r = ctx.Input(1)) {
    if (r.ElementCount() != 1) throw InvalidArg("Dropout: ratio must be a scalar");
    Dispatch<kFloatTypes>(r.ElemType(), [&]<typename T>() { a.ratio = static_cast<double>(TypedIn<T>(r)[0]); });
  }
  if (sdk::TensorView t = ctx.Input(2)) {
    if (t.ElementCount() != 1 || t.ElemType() != KILN_ELEM_BOOL)
      throw InvalidArg("Dropout: training_mode must be a bool scalar");
    a.training = TypedIn<uint8_t>(t)[0] != 0;
  }
  if (a.ratio < 0 || a.ratio > 1) throw InvalidArg("Dropout: ratio must be in [0, 1]");
  return a;
}

// The mask output: bool from opset 10, the data's element type before.
template <typename T>
void EmitMask(sdk::KernelContext& ctx, const sdk::TensorView& x, const std::vector<uint8_t>* keep) {
  if (ctx.OutputCount() < 2) return;
  const int64_t n = x.ElementCount();
  if (ctx.OpsetVersion() >= 10) {
    uint8_t* m = TypedOut<uint8_t>(ctx.AllocOutput(1, KILN_ELEM_BOOL, x.Dims()));
    for (int64_t i = 0; i < n; ++i) m[i] = keep ? (*keep)[static_cast<size_t>(i)] : 1;
  } else {
    T* m = TypedOut<T>(ctx.AllocOutput(1, x.ElemType(), x.Dims()));
    for (int64_t i = 0; i < n; ++i) m[i] = static_cast<T>(keep ? (*keep)[static_cast<size_t>(i)] : 1);
  }
}

void DropoutInference(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  const DropoutArgs a = ReadArgs(ctx);
  if (a.training && a.ratio > 0) throw sdk::Unsupported("Dropout in training mode is nondeterministic");
  Dispatch<kFloatTypes>(x.ElemType(), [&]<typename T>() {
    CopyTensorTo(x, ctx.AllocOutput(0, x.ElemType(), x.Dims()));
    EmitMask<T>(ctx, x, nullptr);
  });
}

void DropoutTraining(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  const DropoutArgs a = ReadArgs(ctx);
  std::mt19937_64 rng(ctx.HasAttr("seed") ? static_cast<uint64_t>(ctx.GetInt("seed", 0)) : std::random_device{}());
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  const int64_t n = x.ElementCount();
  std::vector<uint8_t> keep(static_cast<size_t>(n));
  for (auto& k : keep) k = uniform(rng) >= a.ratio ? 1 : 0;
  const double scale = a.ratio < 1 ? 1.0 / (1.0 - a.ratio) : 0.0;
  Dispatch<kFloatTypes>(x.ElemType(), [&]<typename T>() {
    const T* src = TypedIn<T>(x);
    T* dst = TypedOut<T>(ctx.AllocOutput(0, x.ElemType(), x.Dims()));
    for (int64_t i = 0; i < n; ++i)
      dst[i] = keep[static_cast<size_t>(i)] ? static_cast<T>(static_cast<Compute<T>>(src[i]) * scale) : T(0);
    EmitMask<T>(ctx, x, &keep);
  });
}

}  // namespace

KILN_PLUGIN_PART(TensorDropout) {
  reg.AddKernelFn({.op_type = "Dropout", .since_version = 1, .flags = kThreadSafe}, DropoutInference);
  // Training mode exists only from opset 12 on (training_mode input); before that Dropout stays deterministic.
  reg.AddKernelFn({.op_type = "Dropout",
                   .since_version = 12,
                   .flags = KILN_KERNEL_NONDETERMINISTIC | kThreadSafe,
                   .name = "Dropout(training)"},
                  DropoutTraining);
}
