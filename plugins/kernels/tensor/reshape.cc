// Shape-only ops that copy their input unchanged under new dimensions: Reshape (shape attribute before opset 5,
// input after; allowzero from 14), Flatten, Squeeze and Unsqueeze (axes attribute before 13, input after), and
// Identity (tensors; sequences and optionals from opset 16). Every element type, strings included.
#include <optional>

#include <kiln/kiln_plugin_parts.hpp>
#include "core/tensor_util.h"

namespace {

namespace sdk = kiln::sdk;
using namespace kiln::kernels;
using namespace kiln::kernels::tx;

void ReshapeKernel(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  std::vector<int64_t> shape;
  if (ctx.OpsetVersion() < 5)
    shape = ctx.GetInts("shape");
  else
    shape = ReadInts(ctx.RequiredInput(1), "Reshape's shape");
  const bool allowzero = ctx.GetInt("allowzero", 0) != 0;
  auto in = x.Dims();
  int64_t infer = -1, known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && !allowzero) {
      if (i >= in.size()) throw InvalidArg("Reshape: shape[" + std::to_string(i) + "] = 0 copies a missing dim");
      shape[i] = in[i];
    } else if (shape[i] == -1) {
      if (infer >= 0) throw InvalidArg("Reshape: more than one -1 in the shape");
      infer = static_cast<int64_t>(i);
      continue;
    } else if (shape[i] < 0) {
      throw InvalidArg("Reshape: invalid dim " + std::to_string(shape[i]));
    }
    known *= shape[i];
  }
  if (infer >= 0) {
    const int64_t n = x.ElementCount();
    if (known == 0 || n % known != 0)
      throw InvalidArg("Reshape: cannot infer the -1 dim of " + std::to_string(n) + " elements");
    shape[static_cast<size_t>(infer)] = n / known;
  }
  EmitReshaped(ctx, 0, x, shape);
}

void FlattenKernel(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  const int64_t rank = static_cast<int64_t>(x.Rank());
  int64_t axis = ctx.GetInt("axis", 1);
  if (axis < -rank || axis > rank) throw InvalidArg("Flatten: axis " + std::to_string(axis) + " is out of range");
  if (axis < 0) axis += rank;
  int64_t dims[] = {1, 1};
  for (int64_t i = 0; i < rank; ++i) dims[i < axis ? 0 : 1] *= x.Dims()[static_cast<size_t>(i)];
  EmitReshaped(ctx, 0, x, dims);
}

// Axes from the attribute (opset < 13) or the optional second input; for Squeeze an empty axes input counts as
// absent (squeeze every unit dim).
std::optional<std::vector<int64_t>> AxesOf(sdk::KernelContext& ctx, bool empty_is_absent) {
  if (ctx.OpsetVersion() < 13) {
    if (!ctx.HasAttr("axes")) return std::nullopt;
    return ctx.GetInts("axes");
  }
  sdk::TensorView axes = ctx.Input(1);
  if (!axes || (empty_is_absent && axes.ElementCount() == 0)) return std::nullopt;
  return ReadInts(axes, "axes");
}

void SqueezeKernel(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  auto in = x.Dims();
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<bool> drop(in.size(), false);
  if (auto axes = AxesOf(ctx, true)) {
    for (int64_t a : NormalizeAxes(*axes, rank)) {
      if (in[static_cast<size_t>(a)] != 1)
        throw InvalidArg("Squeeze: dim " + std::to_string(a) + " has size " +
                         std::to_string(in[static_cast<size_t>(a)]) + ", not 1");
      drop[static_cast<size_t>(a)] = true;
    }
  } else {
    for (size_t i = 0; i < in.size(); ++i) drop[i] = in[i] == 1;
  }
  Dims out;
  for (size_t i = 0; i < in.size(); ++i)
    if (!drop[i]) out.push_back(in[i]);
  EmitReshaped(ctx, 0, x, out);
}

void UnsqueezeKernel(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  auto axes = AxesOf(ctx, false);
  if (!axes) throw InvalidArg("Unsqueeze: axes are required");
  auto in = x.Dims();
  const int64_t out_rank = static_cast<int64_t>(in.size() + axes->size());
  std::vector<bool> added(static_cast<size_t>(out_rank), false);
  for (int64_t a : NormalizeAxes(*axes, out_rank)) added[static_cast<size_t>(a)] = true;
  Dims out;
  size_t next = 0;
  for (int64_t i = 0; i < out_rank; ++i) out.push_back(added[static_cast<size_t>(i)] ? 1 : in[next++]);
  EmitReshaped(ctx, 0, x, out);
}

// Identity over tensors, sequences and optionals (an optional holding nothing stays empty).
void IdentityKernel(sdk::KernelContext& ctx) {
  switch (ctx.InputKind(0)) {
    case KILN_TYPE_KIND_TENSOR: {
      sdk::TensorView x = ctx.RequiredInput(0);
      EmitReshaped(ctx, 0, x, x.Dims());
      return;
    }
    case KILN_TYPE_KIND_SEQUENCE: {
      int32_t elem = 0;
      std::vector<sdk::TensorView> items = ctx.InputSequence(0, &elem);
      EmitSequence(ctx, 0, elem, items);
      return;
    }
    case KILN_TYPE_KIND_NONE:
      ctx.SetOutputNone(0);
      return;
    default:
      throw sdk::Unsupported("Identity of this kind of value");
  }
}

}  // namespace

KILN_PLUGIN_PART(TensorReshape) {
  reg.AddKernelFn({.op_type = "Reshape", .since_version = 1, .flags = kThreadSafe}, ReshapeKernel);
  reg.AddKernelFn({.op_type = "Flatten", .since_version = 1, .flags = kThreadSafe}, FlattenKernel);
  reg.AddKernelFn({.op_type = "Squeeze", .since_version = 1, .flags = kThreadSafe}, SqueezeKernel);
  reg.AddKernelFn({.op_type = "Unsqueeze", .since_version = 1, .flags = kThreadSafe}, UnsqueezeKernel);
  reg.AddKernelFn({.op_type = "Identity", .since_version = 1, .flags = kThreadSafe}, IdentityKernel);
}
