// Trilu (upper or lower triangle of the last two dims, diagonal offset k from the optional second input) and
// ReverseSequence (reverses the first sequence_lens[b] steps of each batch entry along time_axis). Every element
// type, strings included.
#include <kiln/kiln_plugin_parts.hpp>
#include "core/tensor_util.h"

namespace {

namespace sdk = kiln::sdk;
using namespace kiln::kernels;
using namespace kiln::kernels::tx;

void TriluKernel(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  if (x.Rank() < 2) throw InvalidArg("Trilu: the input needs rank >= 2");
  int64_t k = 0;
  if (sdk::TensorView t = ctx.Input(1)) k = ReadScalarInt(t, "Trilu's k");
  const bool upper = ctx.GetInt("upper", 1) != 0;
  const int64_t rows = x.Dims()[x.Rank() - 2], cols = x.Dims()[x.Rank() - 1];
  const int64_t mats = rows * cols == 0 ? 0 : x.ElementCount() / (rows * cols);
  DispatchRaw(x.ElemType(), [&]<typename U>() {
    RawOut<U> out(ctx.AllocOutput(0, x.ElemType(), x.Dims()));
    const U* src = RawIn<U>(x);
    U* dst = out.data();
    U zero{};
    if constexpr (std::is_same_v<U, KilnString>) zero = {"", 0};
    for (int64_t m = 0; m < mats; ++m)
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) {
          const int64_t idx = (m * rows + i) * cols + j;
          const bool keep = upper ? j - i >= k : j - i <= k;
          dst[idx] = keep ? src[idx] : zero;
        }
    out.Commit();
  });
}

void ReverseSequenceKernel(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  std::vector<int64_t> lens = ReadInts(ctx.RequiredInput(1), "ReverseSequence's sequence_lens");
  if (x.Rank() < 2) throw InvalidArg("ReverseSequence: the input needs rank >= 2");
  const int64_t time_axis = ctx.GetInt("time_axis", 0), batch_axis = ctx.GetInt("batch_axis", 1);
  if (!((time_axis == 0 && batch_axis == 1) || (time_axis == 1 && batch_axis == 0)))
    throw InvalidArg("ReverseSequence: time_axis and batch_axis must be 0 and 1");
  const int64_t steps = x.Dims()[static_cast<size_t>(time_axis)], batch = x.Dims()[static_cast<size_t>(batch_axis)];
  if (static_cast<int64_t>(lens.size()) != batch) throw InvalidArg("ReverseSequence: sequence_lens size != batch");
  const int64_t inner = x.Dims()[0] * x.Dims()[1] == 0 ? 0 : x.ElementCount() / (x.Dims()[0] * x.Dims()[1]);
  DispatchRaw(x.ElemType(), [&]<typename U>() {
    RawOut<U> out(ctx.AllocOutput(0, x.ElemType(), x.Dims()));
    const U* src = RawIn<U>(x);
    U* dst = out.data();
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t len = lens[static_cast<size_t>(b)];
      if (len < 0 || len > steps) throw InvalidArg("ReverseSequence: sequence length out of range");
      for (int64_t t = 0; t < steps; ++t) {
        const int64_t from = t < len ? len - 1 - t : t;
        auto offset = [&](int64_t step) { return (time_axis == 0 ? step * batch + b : b * steps + step) * inner; };
        std::copy(src + offset(from), src + offset(from) + inner, dst + offset(t));
      }
    }
    out.Commit();
  });
}

}  // namespace

KILN_PLUGIN_PART(TensorTriluReverse) {
  reg.AddKernelFn({.op_type = "Trilu", .since_version = 14, .flags = kThreadSafe}, TriluKernel);
  reg.AddKernelFn({.op_type = "ReverseSequence", .since_version = 10, .flags = kThreadSafe}, ReverseSequenceKernel);
}
