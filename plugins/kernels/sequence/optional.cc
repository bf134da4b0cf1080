// The optional ops (opset 15+): Optional (wraps a tensor or sequence, or makes an empty optional when the input
// is absent), OptionalHasElement (bool scalar; an absent input or an empty optional gives false) and
// OptionalGetElement (the tensor or sequence inside; an error for an empty optional). From opset 18 the last two
// also take plain tensors and sequences, which pass through as they are.
#include <kiln/kiln_plugin_parts.hpp>
#include "core/tensor_util.h"

namespace {

namespace sdk = kiln::sdk;
using namespace kiln::kernels;
using namespace kiln::kernels::tx;

// Copies input 0 (a tensor or a sequence) to output 0; returns false when it holds nothing.
bool ForwardValue(sdk::KernelContext& ctx) {
  if (ctx.InputCount() == 0) return false;
  switch (ctx.InputKind(0)) {
    case KILN_TYPE_KIND_TENSOR: {
      sdk::TensorView t = ctx.RequiredInput(0);
      CopyTensorTo(t, ctx.AllocOutput(0, t.ElemType(), t.Dims()));
      return true;
    }
    case KILN_TYPE_KIND_SEQUENCE: {
      int32_t elem = 0;
      std::vector<sdk::TensorView> items = ctx.InputSequence(0, &elem);
      EmitSequence(ctx, 0, elem, items);
      return true;
    }
    case KILN_TYPE_KIND_NONE:
      return false;
    default:
      throw sdk::Unsupported("optional of this kind of value");
  }
}

void OptionalKernel(sdk::KernelContext& ctx) {
  if (!ForwardValue(ctx)) ctx.SetOutputNone(0);
}

void OptionalHasElementKernel(sdk::KernelContext& ctx) {
  const bool has = ctx.InputCount() > 0 && ctx.InputKind(0) != KILN_TYPE_KIND_NONE;
  ctx.AllocOutput(0, KILN_ELEM_BOOL, {}).MutableValues<bool>()[0] = has;
}

void OptionalGetElementKernel(sdk::KernelContext& ctx) {
  if (!ForwardValue(ctx)) throw InvalidArg("OptionalGetElement: the optional holds no value");
}

}  // namespace

KILN_PLUGIN_PART(SequenceOptional) {
  reg.AddKernelFn({.op_type = "Optional", .since_version = 15, .flags = kThreadSafe}, OptionalKernel);
  reg.AddKernelFn({.op_type = "OptionalHasElement", .since_version = 15, .flags = kThreadSafe},
                  OptionalHasElementKernel);
  reg.AddKernelFn({.op_type = "OptionalGetElement", .since_version = 15, .flags = kThreadSafe},
                  OptionalGetElementKernel);
}
