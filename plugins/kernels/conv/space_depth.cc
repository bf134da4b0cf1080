// DepthToSpace (DCR and CRD modes) and SpaceToDepth: each is a reshape to 6-D, a transpose and a reshape back,
// done as one strided copy over the element bytes (any fixed-size element type).
#include <kiln/kiln_plugin_parts.hpp>
#include "core/nn_util.h"

#include <array>
#include <cstring>

namespace kiln::kernels {
namespace {

using nn::Invalid;

// out (row-major over the permuted 6-D dims) = in (6-D `dims`) transposed by `perm`.
template <typename E>
void Permute6(const E* in, const std::array<int64_t, 6>& dims, const std::array<int, 6>& perm, E* out) {
  Dims d(dims.begin(), dims.end());
  Dims s = Strides(d);
  std::array<int64_t, 6> od, os;
  for (int i = 0; i < 6; ++i) od[i] = dims[perm[i]], os[i] = s[perm[i]];
  int64_t o = 0;
  for (int64_t a = 0; a < od[0]; ++a)
    for (int64_t b = 0; b < od[1]; ++b)
      for (int64_t c = 0; c < od[2]; ++c)
        for (int64_t e = 0; e < od[3]; ++e)
          for (int64_t f = 0; f < od[4]; ++f) {
            const E* src = in + a * os[0] + b * os[1] + c * os[2] + e * os[3] + f * os[4];
            for (int64_t g = 0; g < od[5]; ++g) out[o++] = src[g * os[5]];
          }
}

void Run(sdk::KernelContext& ctx, const sdk::TensorView& X, const Dims& yd, const std::array<int64_t, 6>& dims,
         const std::array<int, 6>& perm) {
  sdk::MutableTensor Y = ctx.AllocOutput(0, X.ElemType(), yd);
  const uint64_t esize = X.ElementCount() ? X.ByteSize() / static_cast<uint64_t>(X.ElementCount()) : 0;
  if (X.ElemType() == KILN_ELEM_STRING) throw sdk::Unsupported("string tensors");
  switch (esize) {
    case 0: return;
    case 1: return Permute6(static_cast<const uint8_t*>(X.Data()), dims, perm, static_cast<uint8_t*>(Y.MutableData()));
    case 2: return Permute6(static_cast<const uint16_t*>(X.Data()), dims, perm, static_cast<uint16_t*>(Y.MutableData()));
    case 4: return Permute6(static_cast<const uint32_t*>(X.Data()), dims, perm, static_cast<uint32_t*>(Y.MutableData()));
    case 8: return Permute6(static_cast<const uint64_t*>(X.Data()), dims, perm, static_cast<uint64_t*>(Y.MutableData()));
    default: throw sdk::Unsupported("element size " + std::to_string(esize));
  }
}

void DepthToSpace(sdk::KernelContext& ctx) {
  sdk::TensorView X = ctx.RequiredInput(0);
  if (X.Rank() != 4) Invalid("DepthToSpace", "X must be 4-D, got " + nn::DimsStr(X.Dims()));
  const int64_t b = ctx.GetInt("blocksize", 0);
  const int64_t N = X.Dims()[0], C = X.Dims()[1], H = X.Dims()[2], W = X.Dims()[3];
  if (b < 1 || C % (b * b) != 0) Invalid("DepthToSpace", "blocksize " + std::to_string(b) + " does not divide C");
  const int64_t c = C / (b * b);
  const Dims yd = {N, c, H * b, W * b};
  if (ctx.GetString("mode", "DCR") == "CRD") Run(ctx, X, yd, {N, c, b, b, H, W}, {0, 1, 4, 2, 5, 3});
  else Run(ctx, X, yd, {N, b, b, c, H, W}, {0, 3, 4, 1, 5, 2});
}

void SpaceToDepth(sdk::KernelContext& ctx) {
  sdk::TensorView X = ctx.RequiredInput(0);
  if (X.Rank() != 4) Invalid("SpaceToDepth", "X must be 4-D, got " + nn::DimsStr(X.Dims()));
  const int64_t b = ctx.GetInt("blocksize", 0);
  const int64_t N = X.Dims()[0], C = X.Dims()[1], H = X.Dims()[2], W = X.Dims()[3];
  if (b < 1 || H % b != 0 || W % b != 0)
    Invalid("SpaceToDepth", "blocksize " + std::to_string(b) + " does not divide H and W");
  Run(ctx, X, {N, C * b * b, H / b, W / b}, {N, C, H / b, b, W / b, b}, {0, 3, 5, 1, 2, 4});
}

}  // namespace
}  // namespace kiln::kernels

KILN_PLUGIN_PART(SpaceDepth) {
  using namespace kiln::kernels;
  reg.AddKernelFn({.op_type = "DepthToSpace", .since_version = 1}, DepthToSpace);
  reg.AddKernelFn({.op_type = "SpaceToDepth", .since_version = 1}, SpaceToDepth);
}
