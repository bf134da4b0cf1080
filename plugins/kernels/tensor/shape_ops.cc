// Ops that make tensors from shapes and attributes: Shape (start/end from opset 15), Size, Range,
// ConstantOfShape, Constant (value, value_float(s), value_int(s), value_string(s); sparse_value is not readable
// through the SDK and answers Unsupported) and EyeLike.
#include <cmath>

#include "core/elem_types.h"
#include <kiln/kiln_plugin_parts.hpp>
#include "core/tensor_util.h"

namespace {

namespace sdk = kiln::sdk;
using namespace kiln::kernels;
using namespace kiln::kernels::tx;

void ShapeKernel(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  const int64_t rank = static_cast<int64_t>(x.Rank());
  int64_t start = ctx.GetInt("start", 0), end = ctx.GetInt("end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, 0, rank);
  const int64_t n = std::max<int64_t>(end - start, 0);
  const int64_t dims[] = {n};
  auto out = ctx.AllocOutput(0, KILN_ELEM_INT64, dims).MutableValues<int64_t>();
  for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = x.Dims()[static_cast<size_t>(start + i)];
}

void SizeKernel(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  ctx.AllocOutput(0, KILN_ELEM_INT64, {}).MutableValues<int64_t>()[0] = x.ElementCount();
}

using RangeTypes = TypeList<float, double, int16_t, int32_t, int64_t>;

void RangeKernel(sdk::KernelContext& ctx) {
  sdk::TensorView start_t = ctx.RequiredInput(0), limit_t = ctx.RequiredInput(1), delta_t = ctx.RequiredInput(2);
  const int32_t elem = start_t.ElemType();
  if (limit_t.ElemType() != elem || delta_t.ElemType() != elem)
    throw InvalidArg("Range: start, limit and delta must have one element type");
  if (start_t.ElementCount() != 1 || limit_t.ElementCount() != 1 || delta_t.ElementCount() != 1)
    throw InvalidArg("Range: start, limit and delta must be scalars");
  Dispatch<RangeTypes>(elem, [&]<typename T>() {
    const T start = TypedIn<T>(start_t)[0], limit = TypedIn<T>(limit_t)[0], delta = TypedIn<T>(delta_t)[0];
    if (delta == T(0)) throw InvalidArg("Range: delta is zero");
    int64_t n;
    if constexpr (std::is_integral_v<T>) {
      const int64_t span = static_cast<int64_t>(limit) - static_cast<int64_t>(start), d = delta;
      n = span / d + ((span % d != 0 && ((span < 0) == (d < 0))) ? 1 : 0);
    } else {
      n = static_cast<int64_t>(std::ceil((static_cast<double>(limit) - start) / delta));
    }
    n = std::max<int64_t>(n, 0);
    const int64_t dims[] = {n};
    T* out = TypedOut<T>(ctx.AllocOutput(0, elem, dims));
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(start + static_cast<T>(i) * delta);
  });
}

// Fills output 0 (dims) with the single element of `value`.
void FillWith(sdk::KernelContext& ctx, const sdk::TensorView& value, std::span<const int64_t> dims) {
  if (value.ElementCount() != 1) throw InvalidArg("ConstantOfShape: value must hold one element");
  DispatchRaw(value.ElemType(), [&]<typename U>() {
    RawOut<U> out(ctx.AllocOutput(0, value.ElemType(), dims));
    const U v = RawIn<U>(value)[0];
    std::fill(out.data(), out.data() + NumElements(dims), v);
    out.Commit();
  });
}

void ConstantOfShapeKernel(sdk::KernelContext& ctx) {
  std::vector<int64_t> dims = ReadInts(ctx.RequiredInput(0), "ConstantOfShape's shape");
  for (int64_t d : dims)
    if (d < 0) throw InvalidArg("ConstantOfShape: negative dim " + std::to_string(d));
  sdk::Attribute value = ctx.Attr("value");
  if (value) {
    FillWith(ctx, value.Tensor(), dims);
  } else {
    ctx.AllocOutput(0, KILN_ELEM_FLOAT, dims);  // zeroed
  }
}

void ConstantKernel(sdk::KernelContext& ctx) {
  if (sdk::Attribute a = ctx.Attr("value")) {
    sdk::TensorView t = a.Tensor();
    if (!t) throw InvalidArg("Constant: 'value' is not a tensor");
    CopyTensorTo(t, ctx.AllocOutput(0, t.ElemType(), t.Dims()));
  } else if (ctx.HasAttr("value_float")) {
    ctx.AllocOutput(0, KILN_ELEM_FLOAT, {}).MutableValues<float>()[0] = ctx.GetFloat("value_float", 0);
  } else if (ctx.HasAttr("value_floats")) {
    std::vector<float> v = ctx.GetFloats("value_floats");
    const int64_t dims[] = {static_cast<int64_t>(v.size())};
    std::ranges::copy(v, ctx.AllocOutput(0, KILN_ELEM_FLOAT, dims).MutableValues<float>().begin());
  } else if (ctx.HasAttr("value_int")) {
    ctx.AllocOutput(0, KILN_ELEM_INT64, {}).MutableValues<int64_t>()[0] = ctx.GetInt("value_int", 0);
  } else if (ctx.HasAttr("value_ints")) {
    std::vector<int64_t> v = ctx.GetInts("value_ints");
    const int64_t dims[] = {static_cast<int64_t>(v.size())};
    std::ranges::copy(v, ctx.AllocOutput(0, KILN_ELEM_INT64, dims).MutableValues<int64_t>().begin());
  } else if (ctx.HasAttr("value_string")) {
    ctx.AllocOutput(0, KILN_ELEM_STRING, {}).SetString(0, ctx.GetString("value_string", ""));
  } else if (sdk::Attribute s = ctx.Attr("value_strings")) {
    std::vector<std::string_view> v = s.Strings();
    const int64_t dims[] = {static_cast<int64_t>(v.size())};
    sdk::MutableTensor out = ctx.AllocOutput(0, KILN_ELEM_STRING, dims);
    for (size_t i = 0; i < v.size(); ++i) out.SetString(i, v[i]);
  } else if (ctx.HasAttr("sparse_value")) {
    throw sdk::Unsupported("Constant: sparse_value is not readable through the SDK");
  } else {
    throw InvalidArg("Constant: no value attribute");
  }
}

void EyeLikeKernel(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  if (x.Rank() != 2) throw InvalidArg("EyeLike: the input must be 2-D");
  const int32_t elem = static_cast<int32_t>(ctx.GetInt("dtype", x.ElemType()));
  const int64_t k = ctx.GetInt("k", 0), rows = x.Dims()[0], cols = x.Dims()[1];
  Dispatch<kAllPodTypes>(elem, [&]<typename T>() {
    T* out = TypedOut<T>(ctx.AllocOutput(0, elem, x.Dims()));
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t j = i + k;
      if (j >= 0 && j < cols) out[i * cols + j] = static_cast<T>(1);
    }
  });
}

}  // namespace

KILN_PLUGIN_PART(TensorShapeOps) {
  reg.AddKernelFn({.op_type = "Shape", .since_version = 1, .flags = kThreadSafe}, ShapeKernel);
  reg.AddKernelFn({.op_type = "Size", .since_version = 1, .flags = kThreadSafe}, SizeKernel);
  reg.AddKernelFn({.op_type = "Range", .since_version = 11, .flags = kThreadSafe}, RangeKernel);
  reg.AddKernelFn({.op_type = "ConstantOfShape", .since_version = 9, .flags = kThreadSafe}, ConstantOfShapeKernel);
  reg.AddKernelFn({.op_type = "Constant", .since_version = 1, .flags = kThreadSafe}, ConstantKernel);
  reg.AddKernelFn({.op_type = "EyeLike", .since_version = 9, .flags = kThreadSafe}, EyeLikeKernel);
}
