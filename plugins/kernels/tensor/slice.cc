// Slice: starts/ends/axes attributes before opset 10; starts, ends, axes and steps inputs after (steps may be
// negative). Out-of-range bounds clamp as ONNX says. Every element type, strings included.
#include <kiln/kiln_plugin_parts.hpp>
#include "core/tensor_util.h"

namespace {

namespace sdk = kiln::sdk;
using namespace kiln::kernels;
using namespace kiln::kernels::tx;

void SliceKernel(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  auto in = x.Dims();
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> starts, ends, axes, steps;
  if (ctx.OpsetVersion() < 10) {
    starts = ctx.GetInts("starts");
    ends = ctx.GetInts("ends");
    axes = ctx.GetInts("axes");
  } else {
    starts = ReadInts(ctx.RequiredInput(1), "Slice's starts");
    ends = ReadInts(ctx.RequiredInput(2), "Slice's ends");
    if (sdk::TensorView t = ctx.Input(3)) axes = ReadInts(t, "Slice's axes");
    if (sdk::TensorView t = ctx.Input(4)) steps = ReadInts(t, "Slice's steps");
  }
  if (starts.size() != ends.size()) throw InvalidArg("Slice: starts and ends differ in length");
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    throw InvalidArg("Slice: starts, ends, axes and steps differ in length");
  axes = NormalizeAxes(axes, rank);

  const Dims in_strides = Strides(in);
  Dims out_dims(in.begin(), in.end()), strides = in_strides;
  int64_t offset = 0;
  for (size_t i = 0; i < axes.size(); ++i) {
    const size_t a = static_cast<size_t>(axes[i]);
    const int64_t d = in[a], step = steps[i];
    if (step == 0) throw InvalidArg("Slice: step is zero");
    int64_t start = starts[i], end = ends[i];
    if (start < 0) start += d;
    if (end < 0) end += d;
    int64_t count;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, d);
      end = std::clamp<int64_t>(end, 0, d);
      count = end > start ? (end - start + step - 1) / step : 0;
    } else {
      start = std::clamp<int64_t>(start, 0, d - 1);
      end = std::clamp<int64_t>(end, -1, d - 1);
      count = start > end ? (start - end + (-step) - 1) / (-step) : 0;
    }
    out_dims[a] = count;
    strides[a] = in_strides[a] * step;
    if (count > 0) offset += start * in_strides[a];
  }
  DispatchRaw(x.ElemType(), [&]<typename U>() {
    RawOut<U> out(ctx.AllocOutput(0, x.ElemType(), out_dims));
    StridedCopy(RawBytesIn(x), offset, out_dims, strides, out.data());
    out.Commit();
  });
}

}  // namespace

KILN_PLUGIN_PART(TensorSlice) {
  reg.AddKernelFn({.op_type = "Slice", .since_version = 1, .flags = kThreadSafe}, SliceKernel);
}
