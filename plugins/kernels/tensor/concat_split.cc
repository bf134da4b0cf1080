// Concat and Split along one axis. Split takes its sizes from the 'split' attribute before opset 13, from the
// optional second input after, and from num_outputs (opset 18) or the output count otherwise (equal parts; the
// last one smaller at opset 18 when the dim does not divide). Every element type, strings included.
#include <kiln/kiln_plugin_parts.hpp>
#include "core/tensor_util.h"

namespace {

namespace sdk = kiln::sdk;
using namespace kiln::kernels;
using namespace kiln::kernels::tx;

void ConcatKernel(sdk::KernelContext& ctx) {
  std::vector<sdk::TensorView> ins;
  for (size_t i = 0; i < ctx.InputCount(); ++i)
    if (sdk::TensorView t = ctx.Input(i)) ins.push_back(t);
  if (ins.empty()) throw InvalidArg("Concat: no inputs");
  const int32_t elem = ins[0].ElemType();
  const int64_t rank = static_cast<int64_t>(ins[0].Rank());
  const int64_t axis = NormalizeAxis(ctx.GetInt("axis", ctx.OpsetVersion() < 4 ? 1 : 0), rank);
  Dims out_dims(ins[0].Dims().begin(), ins[0].Dims().end());
  out_dims[static_cast<size_t>(axis)] = 0;
  for (const sdk::TensorView& t : ins) {
    if (t.ElemType() != elem) throw InvalidArg("Concat: inputs have different element types");
    if (static_cast<int64_t>(t.Rank()) != rank) throw InvalidArg("Concat: inputs have different ranks");
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t v = t.Dims()[static_cast<size_t>(d)];
      if (d == axis)
        out_dims[static_cast<size_t>(d)] += v;
      else if (v != out_dims[static_cast<size_t>(d)])
        throw InvalidArg("Concat: input dims differ on axis " + std::to_string(d));
    }
  }
  const AxisSplit s = SplitAt(out_dims, axis);
  DispatchRaw(elem, [&]<typename U>() {
    RawOut<U> out(ctx.AllocOutput(0, elem, out_dims));
    U* dst = out.data();
    const int64_t row = s.axis * s.inner;
    int64_t offset = 0;
    for (const sdk::TensorView& t : ins) {
      const int64_t chunk = t.Dims()[static_cast<size_t>(axis)] * s.inner;
      const U* src = RawIn<U>(t);
      for (int64_t o = 0; o < s.outer; ++o) std::copy(src + o * chunk, src + (o + 1) * chunk, dst + o * row + offset);
      offset += chunk;
    }
    out.Commit();
  });
}

void SplitKernel(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  const int64_t rank = static_cast<int64_t>(x.Rank());
  const int64_t axis = NormalizeAxis(ctx.GetInt("axis", 0), rank);
  const int64_t dim = x.Dims()[static_cast<size_t>(axis)];
  const int64_t opset = ctx.OpsetVersion();
  std::vector<int64_t> split;
  if (opset < 13) {
    split = ctx.GetInts("split");
    if (split.empty() && opset < 2 && ctx.Input(1)) split = ReadInts(ctx.Input(1), "Split's split");
  } else if (sdk::TensorView t = ctx.Input(1)) {
    split = ReadInts(t, "Split's split");
  }
  if (split.empty()) {
    const int64_t n =
        ctx.HasAttr("num_outputs") ? ctx.GetInt("num_outputs", 1) : static_cast<int64_t>(ctx.OutputCount());
    if (n <= 0) throw InvalidArg("Split: no outputs");
    if (dim % n == 0) {
      split.assign(static_cast<size_t>(n), dim / n);
    } else if (opset >= 18) {
      const int64_t part = (dim + n - 1) / n;
      for (int64_t i = 0; i < n; ++i) split.push_back(std::clamp<int64_t>(dim - i * part, 0, part));
    } else {
      throw InvalidArg("Split: dim " + std::to_string(dim) + " does not divide into " + std::to_string(n) + " parts");
    }
  }
  int64_t sum = 0;
  for (int64_t v : split) {
    if (v < 0) throw InvalidArg("Split: negative split size");
    sum += v;
  }
  if (sum != dim) throw InvalidArg("Split: sizes add up to " + std::to_string(sum) + ", not " + std::to_string(dim));
  if (split.size() > ctx.OutputCount()) throw InvalidArg("Split: more parts than outputs");
  const AxisSplit s = SplitAt(x.Dims(), axis);
  DispatchRaw(x.ElemType(), [&]<typename U>() {
    const U* src = RawIn<U>(x);
    const int64_t row = s.axis * s.inner;
    int64_t offset = 0;
    for (size_t i = 0; i < split.size(); ++i) {
      Dims dims(x.Dims().begin(), x.Dims().end());
      dims[static_cast<size_t>(axis)] = split[i];
      RawOut<U> out(ctx.AllocOutput(i, x.ElemType(), dims));
      const int64_t chunk = split[i] * s.inner;
      for (int64_t o = 0; o < s.outer; ++o)
        std::copy(src + o * row + offset, src + o * row + offset + chunk, out.data() + o * chunk);
      out.Commit();
      offset += chunk;
    }
  });
}

}  // namespace

KILN_PLUGIN_PART(TensorConcatSplit) {
  reg.AddKernelFn({.op_type = "Concat", .since_version = 1, .flags = kThreadSafe}, ConcatKernel);
  reg.AddKernelFn({.op_type = "Split", .since_version = 1, .flags = kThreadSafe}, SplitKernel);
}
