// The scatters: Scatter (opset 9-10) and ScatterElements (11+; reduction none/add/mul from 16, max/min from 18)
// write update elements at index positions along an axis; ScatterND (11+; the same reductions) writes update
// slices at index tuples. The output starts as a copy of the data. Plain scatters take every element type,
// strings included; reductions take the numeric types (float16/bfloat16 computed in float).
#include "core/elem_types.h"
#include <kiln/kiln_plugin_parts.hpp>
#include "core/tensor_util.h"

namespace {

namespace sdk = kiln::sdk;
using namespace kiln::kernels;
using namespace kiln::kernels::tx;

enum class Reduction { kNone, kAdd, kMul, kMax, kMin };

Reduction ReadReduction(sdk::KernelContext& ctx) {
  const std::string r = ctx.GetString("reduction", "none");
  if (r == "none") return Reduction::kNone;
  if (r == "add") return Reduction::kAdd;
  if (r == "mul") return Reduction::kMul;
  if (r == "max") return Reduction::kMax;
  if (r == "min") return Reduction::kMin;
  throw InvalidArg("unknown reduction '" + r + "'");
}

template <typename T>
T Combine(Reduction r, T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    switch (r) {
      case Reduction::kAdd:
      case Reduction::kMax:
        return a || b;
      case Reduction::kMul:
      case Reduction::kMin:
        return a && b;
      default:
        return b;
    }
  } else {
    using C = Compute<T>;
    const C x = static_cast<C>(a), y = static_cast<C>(b);
    switch (r) {
      case Reduction::kAdd:
        return static_cast<T>(x + y);
      case Reduction::kMul:
        return static_cast<T>(x * y);
      case Reduction::kMax:
        return static_cast<T>(std::max(x, y));
      case Reduction::kMin:
        return static_cast<T>(std::min(x, y));
      default:
        return b;
    }
  }
}

// Runs body.template operator()<T>(combine) with T raw (no reduction) or typed (a reduction); combine(dst, upd)
// stores the update.
template <typename Body>
void WithCombine(int32_t elem, Reduction r, Body&& body) {
  if (r == Reduction::kNone) {
    DispatchRaw(elem, [&]<typename U>() { body.template operator()<U>([](U& d, const U& u) { d = u; }); });
  } else {
    Dispatch<kAllPodTypes>(
        elem, [&]<typename T>() { body.template operator()<T>([r](T& d, const T& u) { d = Combine(r, d, u); }); });
  }
}

void ScatterElementsKernel(sdk::KernelContext& ctx) {
  sdk::TensorView data = ctx.RequiredInput(0), indices_t = ctx.RequiredInput(1), updates = ctx.RequiredInput(2);
  const int64_t rank = static_cast<int64_t>(data.Rank());
  auto idims = indices_t.Dims();
  if (static_cast<int64_t>(idims.size()) != rank || !std::ranges::equal(idims, updates.Dims()))
    throw InvalidArg("ScatterElements: indices and updates must have one shape of the data's rank");
  if (updates.ElemType() != data.ElemType()) throw InvalidArg("ScatterElements: updates differ in element type");
  const int64_t axis = NormalizeAxis(ctx.GetInt("axis", 0), rank);
  const std::vector<int64_t> indices = ReadInts(indices_t, "ScatterElements' indices");
  const Dims dstrides = Strides(data.Dims());
  const int64_t axis_dim = data.Dims()[static_cast<size_t>(axis)];
  WithCombine(data.ElemType(), ctx.OpsetVersion() >= 16 ? ReadReduction(ctx) : Reduction::kNone,
              [&]<typename T>(auto combine) {
                RawOut<T> out(ctx.AllocOutput(0, data.ElemType(), data.Dims()));
                const T* src = static_cast<const T*>(data.Data());
                const T* upd = static_cast<const T*>(updates.Data());
                T* dst = out.data();
                std::copy(src, src + data.ElementCount(), dst);
                std::vector<int64_t> counter(idims.size(), 0);
                int64_t base = 0;
                for (size_t n = 0; n < indices.size(); ++n) {
                  const int64_t i = NormalizeIndex(indices[n], axis_dim, "ScatterElements: index");
                  combine(dst[base + i * dstrides[static_cast<size_t>(axis)]], upd[n]);
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

void ScatterNDKernel(sdk::KernelContext& ctx) {
  sdk::TensorView data = ctx.RequiredInput(0), indices_t = ctx.RequiredInput(1), updates = ctx.RequiredInput(2);
  auto ddims = data.Dims();
  auto idims = indices_t.Dims();
  if (idims.empty()) throw InvalidArg("ScatterND: indices need rank >= 1");
  if (updates.ElemType() != data.ElemType()) throw InvalidArg("ScatterND: updates differ in element type");
  const int64_t k = idims.back();
  if (k < 1 || k > static_cast<int64_t>(ddims.size())) throw InvalidArg("ScatterND: index tuples too long");
  Dims expect(idims.begin(), idims.end() - 1);
  expect.insert(expect.end(), ddims.begin() + k, ddims.end());
  if (!std::ranges::equal(expect, updates.Dims())) throw InvalidArg("ScatterND: updates have the wrong shape");
  const std::vector<int64_t> indices = ReadInts(indices_t, "ScatterND's indices");
  int64_t chunk = 1;
  for (size_t i = static_cast<size_t>(k); i < ddims.size(); ++i) chunk *= ddims[i];
  const Dims dstrides = Strides(ddims);
  const int64_t tuples = static_cast<int64_t>(indices.size()) / k;
  WithCombine(data.ElemType(), ctx.OpsetVersion() >= 16 ? ReadReduction(ctx) : Reduction::kNone,
              [&]<typename T>(auto combine) {
                RawOut<T> out(ctx.AllocOutput(0, data.ElemType(), ddims));
                const T* src = static_cast<const T*>(data.Data());
                const T* upd = static_cast<const T*>(updates.Data());
                T* dst = out.data();
                std::copy(src, src + data.ElementCount(), dst);
                for (int64_t t = 0; t < tuples; ++t) {
                  int64_t offset = 0;
                  for (int64_t j = 0; j < k; ++j)
                    offset += NormalizeIndex(indices[static_cast<size_t>(t * k + j)], ddims[static_cast<size_t>(j)],
                                             "ScatterND: index") *
                              dstrides[static_cast<size_t>(j)];
                  for (int64_t e = 0; e < chunk; ++e) combine(dst[offset + e], upd[t * chunk + e]);
                }
                out.Commit();
              });
}

}  // namespace

KILN_PLUGIN_PART(IndexScatter) {
  reg.AddKernelFn({.op_type = "Scatter", .since_version = 9, .until_version = 10, .flags = kThreadSafe},
                  ScatterElementsKernel);
  reg.AddKernelFn({.op_type = "ScatterElements", .since_version = 11, .flags = kThreadSafe}, ScatterElementsKernel);
  reg.AddKernelFn({.op_type = "ScatterND", .since_version = 11, .flags = kThreadSafe}, ScatterNDKernel);
}
