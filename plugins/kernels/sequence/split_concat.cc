// Between tensors and sequences: SplitToSequence (a tensor cut along an axis into a sequence: by a split input
// that is a scalar chunk size or a list of sizes, or into unit slices that keepdims=0 squeezes) and
// ConcatFromSequence (the elements joined along an axis, or stacked on a new one with new_axis=1).
#include <kiln/kiln_plugin_parts.hpp>
#include "core/tensor_util.h"

namespace {

namespace sdk = kiln::sdk;
using namespace kiln::kernels;
using namespace kiln::kernels::tx;

void SplitToSequenceKernel(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  const int64_t rank = static_cast<int64_t>(x.Rank());
  const int64_t axis = NormalizeAxis(ctx.GetInt("axis", 0), rank);
  const int64_t dim = x.Dims()[static_cast<size_t>(axis)];
  std::vector<int64_t> sizes;
  bool squeeze = false;
  if (sdk::TensorView split = ctx.Input(1)) {
    std::vector<int64_t> v = ReadInts(split, "SplitToSequence's split");
    if (split.Rank() == 0) {
      if (v[0] <= 0) throw InvalidArg("SplitToSequence: split must be positive");
      for (int64_t left = dim; left > 0; left -= v[0]) sizes.push_back(std::min(left, v[0]));
    } else {
      sizes = v;
      int64_t sum = 0;
      for (int64_t s : sizes) {
        if (s < 0) throw InvalidArg("SplitToSequence: negative split size");
        sum += s;
      }
      if (sum != dim)
        throw InvalidArg("SplitToSequence: sizes add up to " + std::to_string(sum) + ", not " + std::to_string(dim));
    }
  } else {
    sizes.assign(static_cast<size_t>(dim), 1);
    squeeze = ctx.GetInt("keepdims", 1) == 0;
  }
  const AxisSplit s = SplitAt(x.Dims(), axis);
  ctx.AllocOutputSequence(0, x.ElemType(), sizes.size());
  DispatchRaw(x.ElemType(), [&]<typename U>() {
    const U* src = RawIn<U>(x);
    int64_t offset = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      Dims dims(x.Dims().begin(), x.Dims().end());
      if (squeeze)
        dims.erase(dims.begin() + axis);
      else
        dims[static_cast<size_t>(axis)] = sizes[i];
      RawOut<U> out(ctx.AllocSequenceElement(0, i, dims));
      const int64_t chunk = sizes[i] * s.inner, row = s.axis * s.inner;
      for (int64_t o = 0; o < s.outer; ++o)
        std::copy(src + o * row + offset, src + o * row + offset + chunk, out.data() + o * chunk);
      out.Commit();
      offset += chunk;
    }
  });
}

void ConcatFromSequenceKernel(sdk::KernelContext& ctx) {
  if (ctx.InputKind(0) != KILN_TYPE_KIND_SEQUENCE) throw InvalidArg("ConcatFromSequence: input is not a sequence");
  int32_t elem = 0;
  std::vector<sdk::TensorView> seq = ctx.InputSequence(0, &elem);
  if (seq.empty()) throw InvalidArg("ConcatFromSequence: the sequence is empty");
  const bool new_axis = ctx.GetInt("new_axis", 0) != 0;
  const int64_t rank = static_cast<int64_t>(seq[0].Rank());
  const int64_t axis = NormalizeAxis(ctx.GetInt("axis", 0), new_axis ? rank + 1 : rank);
  // Each element seen as outer x part x inner, with part 1 when stacking.
  Dims out_dims(seq[0].Dims().begin(), seq[0].Dims().end());
  if (new_axis)
    out_dims.insert(out_dims.begin() + axis, 0);
  else
    out_dims[static_cast<size_t>(axis)] = 0;
  std::vector<int64_t> parts;
  for (const sdk::TensorView& t : seq) {
    if (t.ElemType() != seq[0].ElemType()) throw InvalidArg("ConcatFromSequence: element types differ");
    if (static_cast<int64_t>(t.Rank()) != rank) throw InvalidArg("ConcatFromSequence: ranks differ");
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t v = t.Dims()[static_cast<size_t>(d)];
      const int64_t od = new_axis && d >= axis ? d + 1 : d;
      if (!new_axis && d == axis) continue;
      if (v != out_dims[static_cast<size_t>(od)]) throw InvalidArg("ConcatFromSequence: dims differ");
    }
    parts.push_back(new_axis ? 1 : t.Dims()[static_cast<size_t>(axis)]);
    out_dims[static_cast<size_t>(axis)] += parts.back();
  }
  const AxisSplit s = SplitAt(out_dims, axis);
  DispatchRaw(seq[0].ElemType(), [&]<typename U>() {
    RawOut<U> out(ctx.AllocOutput(0, seq[0].ElemType(), out_dims));
    U* dst = out.data();
    const int64_t row = s.axis * s.inner;
    int64_t offset = 0;
    for (size_t j = 0; j < seq.size(); ++j) {
      const U* src = RawIn<U>(seq[j]);
      const int64_t chunk = parts[j] * s.inner;
      for (int64_t o = 0; o < s.outer; ++o) std::copy(src + o * chunk, src + (o + 1) * chunk, dst + o * row + offset);
      offset += chunk;
    }
    out.Commit();
  });
}

}  // namespace

KILN_PLUGIN_PART(SequenceSplitConcat) {
  reg.AddKernelFn({.op_type = "SplitToSequence", .since_version = 11, .flags = kThreadSafe}, SplitToSequenceKernel);
  reg.AddKernelFn({.op_type = "ConcatFromSequence", .since_version = 11, .flags = kThreadSafe},
                  ConcatFromSequenceKernel);
}
