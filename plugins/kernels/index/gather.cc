// The gathers: Gather (slices along an axis picked by an index tensor), GatherElements (one element per index,
// same rank as the data) and GatherND (index tuples into the leading dims, with batch_dims from opset 12).
// Indices are int32 or int64 and may be negative. Every data element type, strings included.
#include <kiln/kiln_plugin_parts.hpp>
#include "core/tensor_util.h"

namespace {

namespace sdk = kiln::sdk;
using namespace kiln::kernels;
using namespace kiln::kernels::tx;

void GatherKernel(sdk::KernelContext& ctx) {
  sdk::TensorView data = ctx.RequiredInput(0), indices_t = ctx.RequiredInput(1);
  const int64_t rank = static_cast<int64_t>(data.Rank());
  if (rank == 0) throw InvalidArg("Gather: data must have rank >= 1");
  const int64_t axis = NormalizeAxis(ctx.GetInt("axis", 0), rank);
  std::vector<int64_t> indices = ReadInts(indices_t, "Gather's indices");
  const AxisSplit s = SplitAt(data.Dims(), axis);
  for (int64_t& i : indices) i = NormalizeIndex(i, s.axis, "Gather: index");
  Dims out_dims(data.Dims().begin(), data.Dims().begin() + axis);
  out_dims.insert(out_dims.end(), indices_t.Dims().begin(), indices_t.Dims().end());
  out_dims.insert(out_dims.end(), data.Dims().begin() + axis + 1, data.Dims().end());
  DispatchRaw(data.ElemType(), [&]<typename U>() {
    RawOut<U> out(ctx.AllocOutput(0, data.ElemType(), out_dims));
    const U* src = RawIn<U>(data);
    U* dst = out.data();
    for (int64_t o = 0; o < s.outer; ++o)
      for (int64_t i : indices) {
        const U* from = src + (o * s.axis + i) * s.inner;
        dst = std::copy(from, from + s.inner, dst);
      }
    out.Commit();
  });
}

void GatherElementsKernel(sdk::KernelContext& ctx) {
  sdk::TensorView data = ctx.RequiredInput(0), indices_t = ctx.RequiredInput(1);
  const int64_t rank = static_cast<int64_t>(data.Rank());
  if (static_cast<int64_t>(indices_t.Rank()) != rank)
    throw InvalidArg("GatherElements: indices and data must have the same rank");
  const int64_t axis = NormalizeAxis(ctx.GetInt("axis", 0), rank);
  const std::vector<int64_t> indices = ReadInts(indices_t, "GatherElements' indices");
  auto idims = indices_t.Dims();
  const Dims dstrides = Strides(data.Dims());
  const int64_t axis_dim = data.Dims()[static_cast<size_t>(axis)];
  DispatchRaw(data.ElemType(), [&]<typename U>() {
    RawOut<U> out(ctx.AllocOutput(0, data.ElemType(), idims));
    const U* src = RawIn<U>(data);
    U* dst = out.data();
    std::vector<int64_t> counter(idims.size(), 0);
    int64_t base = 0;  // data offset of the current coordinate with the axis coordinate zero
    for (size_t n = 0; n < indices.size(); ++n) {
      const int64_t i = NormalizeIndex(indices[n], axis_dim, "GatherElements: index");
      dst[n] = src[base + i * dstrides[static_cast<size_t>(axis)]];
      for (size_t d = idims.size(); d-- > 0;) {
        if (static_cast<int64_t>(d) != axis) base += dstrides[d];
        if (++counter[d] < idims[d]) break;
        if (static_cast<int64_t>(d) != axis) base -= dstrides[d] * counter[d];
        counter[d] = 0;
      }
    }
    out.Commit();
  });
}

void GatherNDKernel(sdk::KernelContext& ctx) {
  sdk::TensorView data = ctx.RequiredInput(0), indices_t = ctx.RequiredInput(1);
  auto ddims = data.Dims();
  auto idims = indices_t.Dims();
  const int64_t r = static_cast<int64_t>(ddims.size()), q = static_cast<int64_t>(idims.size());
  const int64_t b = ctx.GetInt("batch_dims", 0);
  if (q < 1 || r < 1) throw InvalidArg("GatherND: data and indices need rank >= 1");
  if (b < 0 || b >= std::min(q, r)) throw InvalidArg("GatherND: batch_dims out of range");
  const int64_t k = idims[static_cast<size_t>(q - 1)];
  if (k < 1 || b + k > r) throw InvalidArg("GatherND: the index tuples are longer than the data's rank");
  int64_t batches = 1;
  for (int64_t i = 0; i < b; ++i) {
    if (ddims[static_cast<size_t>(i)] != idims[static_cast<size_t>(i)])
      throw InvalidArg("GatherND: batch dims of data and indices differ");
    batches *= ddims[static_cast<size_t>(i)];
  }
  const std::vector<int64_t> indices = ReadInts(indices_t, "GatherND's indices");
  int64_t chunk = 1;
  for (int64_t i = b + k; i < r; ++i) chunk *= ddims[static_cast<size_t>(i)];
  const Dims dstrides = Strides(ddims);
  const int64_t batch_stride = b > 0 ? dstrides[static_cast<size_t>(b - 1)] : data.ElementCount();
  const int64_t tuples = static_cast<int64_t>(indices.size()) / k;
  const int64_t tuples_per_batch = batches == 0 ? 0 : tuples / batches;
  Dims out_dims(idims.begin(), idims.end() - 1);
  out_dims.insert(out_dims.end(), ddims.begin() + b + k, ddims.end());
  DispatchRaw(data.ElemType(), [&]<typename U>() {
    RawOut<U> out(ctx.AllocOutput(0, data.ElemType(), out_dims));
    const U* src = RawIn<U>(data);
    U* dst = out.data();
    for (int64_t t = 0; t < tuples; ++t) {
      int64_t offset = (tuples_per_batch == 0 ? 0 : t / tuples_per_batch) * batch_stride;
      for (int64_t j = 0; j < k; ++j) {
        const size_t d = static_cast<size_t>(b + j);
        offset += NormalizeIndex(indices[static_cast<size_t>(t * k + j)], ddims[d], "GatherND: index") * dstrides[d];
      }
      dst = std::copy(src + offset, src + offset + chunk, dst);
    }
    out.Commit();
  });
}

}  // namespace

KILN_PLUGIN_PART(IndexGather) {
  reg.AddKernelFn({.op_type = "Gather", .since_version = 1, .flags = kThreadSafe}, GatherKernel);
  reg.AddKernelFn({.op_type = "GatherElements", .since_version = 11, .flags = kThreadSafe}, GatherElementsKernel);
  reg.AddKernelFn({.op_type = "GatherND", .since_version = 11, .flags = kThreadSafe}, GatherNDKernel);
}
