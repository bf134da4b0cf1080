// Tile (repeats input, opset 6+) and Expand (broadcast to a shape, opset 8+). Both copy through one index map
// per axis (Tile) or with zero strides (Expand). Every element type, strings included.
#include <kiln/kiln_plugin_parts.hpp>
#include "core/tensor_util.h"

namespace {

namespace sdk = kiln::sdk;
using namespace kiln::kernels;
using namespace kiln::kernels::tx;

void CopyThroughMaps(sdk::KernelContext& ctx, const sdk::TensorView& x, std::span<const int64_t> in_dims,
                     const Dims& out_dims, const std::vector<std::vector<int64_t>>& maps) {
  DispatchRaw(x.ElemType(), [&]<typename U>() {
    RawOut<U> out(ctx.AllocOutput(0, x.ElemType(), out_dims));
    if (out_dims.empty())
      out.data()[0] = RawIn<U>(x)[0];
    else
      AxisMapCopy(RawIn<U>(x), in_dims, out_dims, maps, U{}, out.data());
    out.Commit();
  });
}

void TileKernel(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  std::vector<int64_t> repeats = ReadInts(ctx.RequiredInput(1), "Tile's repeats");
  auto in = x.Dims();
  if (repeats.size() != in.size())
    throw InvalidArg("Tile: " + std::to_string(repeats.size()) + " repeats for rank " + std::to_string(in.size()));
  Dims out_dims;
  std::vector<std::vector<int64_t>> maps;
  for (size_t a = 0; a < in.size(); ++a) {
    if (repeats[a] < 0) throw InvalidArg("Tile: negative repeat");
    out_dims.push_back(in[a] * repeats[a]);
    std::vector<int64_t> m(static_cast<size_t>(out_dims.back()));
    for (size_t o = 0; o < m.size(); ++o) m[o] = static_cast<int64_t>(o) % in[a];
    maps.push_back(std::move(m));
  }
  CopyThroughMaps(ctx, x, in, out_dims, maps);
}

void ExpandKernel(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  std::vector<int64_t> shape = ReadInts(ctx.RequiredInput(1), "Expand's shape");
  const std::span<const int64_t> shapes[] = {x.Dims(), shape};
  const Dims out_dims = BroadcastShape(shapes);
  // The input's dims aligned to the output's rank.
  const size_t r = out_dims.size();
  Dims in_dims(r, 1);
  std::copy(x.Dims().begin(), x.Dims().end(), in_dims.begin() + static_cast<std::ptrdiff_t>(r - x.Rank()));
  Dims strides = Strides(in_dims);
  for (size_t a = 0; a < r; ++a)
    if (in_dims[a] == 1) strides[a] = 0;
  DispatchRaw(x.ElemType(), [&]<typename U>() {
    RawOut<U> out(ctx.AllocOutput(0, x.ElemType(), out_dims));
    StridedCopy(RawBytesIn(x), 0, out_dims, strides, out.data());
    out.Commit();
  });
}

}  // namespace

KILN_PLUGIN_PART(TensorTileExpand) {
  reg.AddKernelFn({.op_type = "Tile", .since_version = 6, .flags = kThreadSafe}, TileKernel);
  reg.AddKernelFn({.op_type = "Expand", .since_version = 8, .flags = kThreadSafe}, ExpandKernel);
}
