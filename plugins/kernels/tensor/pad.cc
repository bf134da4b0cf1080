// Pad: constant, reflect, edge and wrap modes. Pads come from the 'paddings' attribute (opset 1), the 'pads'
// attribute (2-10) or the pads input (11+; with the optional constant_value and, from 18, axes inputs). Negative
// pads crop. Every element type, strings included (constant mode pads them with "" unless told otherwise).
#include "core/elem_types.h"
#include <kiln/kiln_plugin_parts.hpp>
#include "core/tensor_util.h"

namespace {

namespace sdk = kiln::sdk;
using namespace kiln::kernels;
using namespace kiln::kernels::tx;

enum class PadMode { kConstant, kReflect, kEdge, kWrap };

PadMode ParseMode(const std::string& mode) {
  if (mode == "constant") return PadMode::kConstant;
  if (mode == "reflect") return PadMode::kReflect;
  if (mode == "edge") return PadMode::kEdge;
  if (mode == "wrap") return PadMode::kWrap;
  throw InvalidArg("Pad: unknown mode '" + mode + "'");
}

// For each output coordinate of one axis, the input coordinate it reads (-1: the constant).
std::vector<int64_t> AxisMap(int64_t d, int64_t begin, int64_t end, PadMode mode) {
  const int64_t out = d + begin + end;
  if (out < 0) throw InvalidArg("Pad: pads crop more than the dim holds");
  std::vector<int64_t> map(static_cast<size_t>(out));
  if (out > 0 && d == 0 && mode != PadMode::kConstant) throw InvalidArg("Pad: cannot pad an empty dim in this mode");
  for (int64_t o = 0; o < out; ++o) {
    int64_t i = o - begin;
    if (i < 0 || i >= d) {
      switch (mode) {
        case PadMode::kConstant:
          i = -1;
          break;
        case PadMode::kEdge:
          i = std::clamp<int64_t>(i, 0, d - 1);
          break;
        case PadMode::kWrap:
          i = ((i % d) + d) % d;
          break;
        case PadMode::kReflect:
          if (d == 1) {
            i = 0;
          } else {
            const int64_t period = 2 * (d - 1);
            i = ((i % period) + period) % period;
            if (i >= d) i = period - i;
          }
          break;
      }
    }
    map[static_cast<size_t>(o)] = i;
  }
  return map;
}

void PadKernel(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  auto in = x.Dims();
  const int64_t rank = static_cast<int64_t>(in.size());
  const int64_t opset = ctx.OpsetVersion();
  const PadMode mode = ParseMode(ctx.GetString("mode", "constant"));
  std::vector<int64_t> pads;
  sdk::TensorView value_t;
  if (opset < 11) {
    pads = ctx.GetInts(opset < 2 && ctx.HasAttr("paddings") ? "paddings" : "pads");
  } else {
    pads = ReadInts(ctx.RequiredInput(1), "Pad's pads");
    value_t = ctx.Input(2);
    if (value_t && value_t.ElemType() != x.ElemType())
      throw InvalidArg("Pad: constant_value has another element type than the data");
  }
  // Pads for the listed axes only (opset 18): spread over the full rank.
  std::vector<int64_t> axes;
  if (sdk::TensorView t = opset >= 18 ? ctx.Input(3) : sdk::TensorView())
    axes = NormalizeAxes(ReadInts(t, "axes"), rank);
  else
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  if (pads.size() != 2 * axes.size())
    throw InvalidArg("Pad: " + std::to_string(pads.size()) + " pads for " + std::to_string(axes.size()) + " axes");
  std::vector<int64_t> begin(static_cast<size_t>(rank), 0), end(static_cast<size_t>(rank), 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    begin[static_cast<size_t>(axes[i])] = pads[i];
    end[static_cast<size_t>(axes[i])] = pads[i + axes.size()];
  }
  std::vector<std::vector<int64_t>> maps;
  Dims out_dims;
  for (int64_t a = 0; a < rank; ++a) {
    const size_t i = static_cast<size_t>(a);
    maps.push_back(AxisMap(in[i], begin[i], end[i], mode));
    out_dims.push_back(static_cast<int64_t>(maps.back().size()));
  }
  DispatchRaw(x.ElemType(), [&]<typename U>() {
    U fill{};
    if constexpr (std::is_same_v<U, KilnString>) {
      fill = {"", 0};
      if (value_t && value_t.ElementCount() > 0) fill = RawIn<U>(value_t)[0];
    } else if (value_t && value_t.ElementCount() > 0) {
      fill = RawIn<U>(value_t)[0];
    } else if (opset < 11) {
      const float v = ctx.GetFloat("value", 0.0f);
      Dispatch<kAllPodTypes>(x.ElemType(), [&]<typename T>() {
        if constexpr (sizeof(T) == sizeof(U)) {
          const T t = static_cast<T>(v);
          std::memcpy(&fill, &t, sizeof(U));
        }
      });
    }
    RawOut<U> out(ctx.AllocOutput(0, x.ElemType(), out_dims));
    if (rank == 0)
      out.data()[0] = RawIn<U>(x)[0];
    else
      AxisMapCopy(RawIn<U>(x), in, out_dims, maps, fill, out.data());
    out.Commit();
  });
}

}  // namespace

KILN_PLUGIN_PART(TensorPad) {
  reg.AddKernelFn({.op_type = "Pad", .since_version = 1, .flags = kThreadSafe}, PadKernel);
}
