// Transpose: permutes the dimensions (perm attribute; default reverses them). Every element type, strings
// included; the copy walks the source with permuted strides, merging dimensions that stay contiguous.
#include <kiln/kiln_plugin_parts.hpp>
#include "core/tensor_util.h"

namespace {

namespace sdk = kiln::sdk;
using namespace kiln::kernels;
using namespace kiln::kernels::tx;

void TransposeKernel(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  auto in = x.Dims();
  const int64_t rank = static_cast<int64_t>(in.size());
  const std::vector<int64_t> perm = ctx.GetInts("perm");  // empty: the dimensions reversed (TransposeView)
  if (!perm.empty() && static_cast<int64_t>(perm.size()) != rank)
    throw InvalidArg("Transpose: perm has " + std::to_string(perm.size()) + " entries for rank " +
                     std::to_string(rank));
  const sdk::StridedView view = *sdk::TransposeView(in, NormalizeAxes(perm, rank));  // a permutation now
  DispatchRaw(x.ElemType(), [&]<typename U>() {
    RawOut<U> out(ctx.AllocOutput(0, x.ElemType(), view.dims));
    StridedCopy(RawBytesIn(x), 0, view.dims, view.strides, out.data());
    out.Commit();
  });
}

}  // namespace

KILN_PLUGIN_PART(TensorTranspose) {
  // Its one input goes through StridedCopy, which reads any address: a weight the file holds misaligned is
  // transposed from where it lies (LLaMA's projection weights: 29 MB not copied first).
  reg.AddKernelFn({.op_type = "Transpose", .since_version = 1, .flags = kThreadSafe | kAnyAlignment}, TransposeKernel);
}
