// Selection by value: NonZero (the coordinates of the non-zero elements, int64 [rank, count]), OneHot (a new axis
// of off/on values; negative indices count from depth, out-of-range ones give all off) and Compress (the slices
// along an axis, or of the flattened input, whose condition is true).
#include "core/elem_types.h"
#include <kiln/kiln_plugin_parts.hpp>
#include "core/tensor_util.h"

namespace {

namespace sdk = kiln::sdk;
using namespace kiln::kernels;
using namespace kiln::kernels::tx;

// Any numeric tensor's values as int64 (float ones truncated).
std::vector<int64_t> ReadAsInt64(const sdk::TensorView& t) {
  std::vector<int64_t> out(static_cast<size_t>(t.ElementCount()));
  Dispatch<kAllPodTypes>(t.ElemType(), [&]<typename T>() {
    const T* p = TypedIn<T>(t);
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<int64_t>(static_cast<Compute<T>>(p[i]));
  });
  return out;
}

void NonZeroKernel(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  std::vector<int64_t> hits;
  Dispatch<kAllPodTypes>(x.ElemType(), [&]<typename T>() {
    const T* p = TypedIn<T>(x);
    const int64_t n = x.ElementCount();
    for (int64_t i = 0; i < n; ++i)
      if (static_cast<Compute<T>>(p[i]) != Compute<T>(0)) hits.push_back(i);
  });
  Dims dims(x.Dims().begin(), x.Dims().end());
  if (dims.empty()) dims = {1};
  const int64_t rank = static_cast<int64_t>(dims.size()), count = static_cast<int64_t>(hits.size());
  const int64_t out_dims[] = {rank, count};
  int64_t* out = TypedOut<int64_t>(ctx.AllocOutput(0, KILN_ELEM_INT64, out_dims));
  for (int64_t j = 0; j < count; ++j) {
    int64_t flat = hits[static_cast<size_t>(j)];
    for (int64_t d = rank; d-- > 0;) {
      out[d * count + j] = flat % dims[static_cast<size_t>(d)];
      flat /= dims[static_cast<size_t>(d)];
    }
  }
}

void OneHotKernel(sdk::KernelContext& ctx) {
  sdk::TensorView indices_t = ctx.RequiredInput(0), depth_t = ctx.RequiredInput(1), values = ctx.RequiredInput(2);
  if (depth_t.ElementCount() != 1) throw InvalidArg("OneHot: depth must be a scalar");
  if (values.ElementCount() != 2) throw InvalidArg("OneHot: values must hold [off, on]");
  const int64_t depth = ReadAsInt64(depth_t)[0];
  if (depth < 1) throw InvalidArg("OneHot: depth must be positive");
  const std::vector<int64_t> indices = ReadAsInt64(indices_t);
  const int64_t out_rank = static_cast<int64_t>(indices_t.Rank()) + 1;
  const int64_t axis = NormalizeAxis(ctx.GetInt("axis", -1), out_rank);
  Dims out_dims(indices_t.Dims().begin(), indices_t.Dims().end());
  out_dims.insert(out_dims.begin() + axis, depth);
  const AxisSplit s = SplitAt(out_dims, axis);  // outer x depth x inner; indices are outer x inner
  DispatchRaw(values.ElemType(), [&]<typename U>() {
    RawOut<U> out(ctx.AllocOutput(0, values.ElemType(), out_dims));
    const U off = RawIn<U>(values)[0], on = RawIn<U>(values)[1];
    U* dst = out.data();
    std::fill(dst, dst + NumElements(out_dims), off);
    for (int64_t o = 0; o < s.outer; ++o)
      for (int64_t i = 0; i < s.inner; ++i) {
        int64_t v = indices[static_cast<size_t>(o * s.inner + i)];
        if (v < 0) v += depth;
        if (v >= 0 && v < depth) dst[(o * depth + v) * s.inner + i] = on;
      }
    out.Commit();
  });
}

void CompressKernel(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0), cond_t = ctx.RequiredInput(1);
  if (cond_t.Rank() != 1) throw InvalidArg("Compress: condition must be 1-D");
  const std::vector<int64_t> cond = ReadAsInt64(cond_t);
  AxisSplit s;
  Dims out_dims;
  if (ctx.HasAttr("axis")) {
    const int64_t axis = NormalizeAxis(ctx.GetInt("axis", 0), static_cast<int64_t>(x.Rank()));
    s = SplitAt(x.Dims(), axis);
    out_dims.assign(x.Dims().begin(), x.Dims().end());
  } else {
    s.axis = x.ElementCount();
  }
  if (static_cast<int64_t>(cond.size()) > s.axis) throw InvalidArg("Compress: condition is longer than the axis");
  std::vector<int64_t> picked;
  for (size_t i = 0; i < cond.size(); ++i)
    if (cond[i]) picked.push_back(static_cast<int64_t>(i));
  const int64_t kept = static_cast<int64_t>(picked.size());
  if (ctx.HasAttr("axis"))
    out_dims[static_cast<size_t>(NormalizeAxis(ctx.GetInt("axis", 0), static_cast<int64_t>(x.Rank())))] = kept;
  else
    out_dims = {kept};
  DispatchRaw(x.ElemType(), [&]<typename U>() {
    RawOut<U> out(ctx.AllocOutput(0, x.ElemType(), out_dims));
    const U* src = RawIn<U>(x);
    U* dst = out.data();
    for (int64_t o = 0; o < s.outer; ++o)
      for (int64_t i : picked) {
        const U* from = src + (o * s.axis + i) * s.inner;
        dst = std::copy(from, from + s.inner, dst);
      }
    out.Commit();
  });
}

}  // namespace

KILN_PLUGIN_PART(IndexSelect) {
  reg.AddKernelFn({.op_type = "NonZero", .since_version = 9, .flags = kThreadSafe}, NonZeroKernel);
  reg.AddKernelFn({.op_type = "OneHot", .since_version = 9, .flags = kThreadSafe}, OneHotKernel);
  reg.AddKernelFn({.op_type = "Compress", .since_version = 9, .flags = kThreadSafe}, CompressKernel);
}
