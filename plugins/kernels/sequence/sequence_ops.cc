// The sequence ops that build and edit sequences of tensors: SequenceEmpty, SequenceConstruct, SequenceAt,
// SequenceInsert, SequenceErase and SequenceLength (opset 11+). Positions are int32/int64 scalars and may be
// negative (counting from the end). Every element type, strings included.
#include <kiln/kiln_plugin_parts.hpp>
#include "core/tensor_util.h"

namespace {

namespace sdk = kiln::sdk;
using namespace kiln::kernels;
using namespace kiln::kernels::tx;

std::vector<sdk::TensorView> SequenceInput(sdk::KernelContext& ctx, size_t i, int32_t* elem) {
  if (ctx.InputKind(i) != KILN_TYPE_KIND_SEQUENCE)
    throw InvalidArg("input " + std::to_string(i) + " is not a sequence");
  return ctx.InputSequence(i, elem);
}

void SequenceEmptyKernel(sdk::KernelContext& ctx) {
  ctx.AllocOutputSequence(0, static_cast<int32_t>(ctx.GetInt("dtype", KILN_ELEM_FLOAT)), 0);
}

void SequenceConstructKernel(sdk::KernelContext& ctx) {
  std::vector<sdk::TensorView> items;
  for (size_t i = 0; i < ctx.InputCount(); ++i) items.push_back(ctx.RequiredInput(i));
  if (items.empty()) throw InvalidArg("SequenceConstruct: no inputs");
  EmitSequence(ctx, 0, items[0].ElemType(), items);
}

void SequenceAtKernel(sdk::KernelContext& ctx) {
  int32_t elem = 0;
  std::vector<sdk::TensorView> seq = SequenceInput(ctx, 0, &elem);
  const int64_t n = static_cast<int64_t>(seq.size());
  const int64_t pos =
      NormalizeIndex(ReadScalarInt(ctx.RequiredInput(1), "SequenceAt's position"), n, "SequenceAt: position");
  const sdk::TensorView& t = seq[static_cast<size_t>(pos)];
  CopyTensorTo(t, ctx.AllocOutput(0, t.ElemType(), t.Dims()));
}

void SequenceInsertKernel(sdk::KernelContext& ctx) {
  int32_t elem = 0;
  std::vector<sdk::TensorView> seq = SequenceInput(ctx, 0, &elem);
  sdk::TensorView t = ctx.RequiredInput(1);
  if (elem == KILN_ELEM_UNDEFINED) elem = t.ElemType();
  const int64_t n = static_cast<int64_t>(seq.size());
  int64_t pos = n;
  if (sdk::TensorView p = ctx.Input(2)) {
    pos = ReadScalarInt(p, "SequenceInsert's position");
    if (pos < -n || pos > n) throw InvalidArg("SequenceInsert: position " + std::to_string(pos) + " out of range");
    if (pos < 0) pos += n;
  }
  seq.insert(seq.begin() + pos, t);
  EmitSequence(ctx, 0, elem, seq);
}

void SequenceEraseKernel(sdk::KernelContext& ctx) {
  int32_t elem = 0;
  std::vector<sdk::TensorView> seq = SequenceInput(ctx, 0, &elem);
  const int64_t n = static_cast<int64_t>(seq.size());
  int64_t pos = n - 1;
  if (sdk::TensorView p = ctx.Input(1)) pos = ReadScalarInt(p, "SequenceErase's position");
  pos = NormalizeIndex(pos, n, "SequenceErase: position");
  seq.erase(seq.begin() + pos);
  EmitSequence(ctx, 0, elem, seq);
}

void SequenceLengthKernel(sdk::KernelContext& ctx) {
  int32_t elem = 0;
  const int64_t n = static_cast<int64_t>(SequenceInput(ctx, 0, &elem).size());
  ctx.AllocOutput(0, KILN_ELEM_INT64, {}).MutableValues<int64_t>()[0] = n;
}

}  // namespace

KILN_PLUGIN_PART(SequenceOps) {
  reg.AddKernelFn({.op_type = "SequenceEmpty", .since_version = 11, .flags = kThreadSafe}, SequenceEmptyKernel);
  reg.AddKernelFn({.op_type = "SequenceConstruct", .since_version = 11, .flags = kThreadSafe}, SequenceConstructKernel);
  reg.AddKernelFn({.op_type = "SequenceAt", .since_version = 11, .flags = kThreadSafe}, SequenceAtKernel);
  reg.AddKernelFn({.op_type = "SequenceInsert", .since_version = 11, .flags = kThreadSafe}, SequenceInsertKernel);
  reg.AddKernelFn({.op_type = "SequenceErase", .since_version = 11, .flags = kThreadSafe}, SequenceEraseKernel);
  reg.AddKernelFn({.op_type = "SequenceLength", .since_version = 11, .flags = kThreadSafe}, SequenceLengthKernel);
}
