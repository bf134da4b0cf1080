// Logical and comparison ops with multidirectional broadcasting: And, Or, Xor, Equal, Greater, GreaterOrEqual,
// Less, LessOrEqual (bool outputs), and Where (any element type, strings included; POD types are moved by size).
#include "core/ew_binary.h"
#include <kiln/kiln_plugin_parts.hpp>

#include <cstring>

namespace kiln::kernels {
namespace {

using namespace ew;
using kBool = TypeList<bool>;
using kEqualTypes = TypeList<bool, float, double, half, bfloat16, int8_t, int16_t, int32_t, int64_t, uint8_t,
                             uint16_t, uint32_t, uint64_t>;

template <typename U>
void WhereLoop(const BroadcastPlan<3>& plan, const bool* c, const void* x, const void* y, void* out) {
  const U* px = static_cast<const U*>(x);
  const U* py = static_cast<const U*>(y);
  U* po = static_cast<U*>(out);
  ForEachRun(plan, [&](const std::array<int64_t, 3>& off, int64_t o, int64_t n, const std::array<int64_t, 3>& st) {
    const bool* pc = c + off[0];
    const U* a = px + off[1];
    const U* b = py + off[2];
    U* r = po + o;
    for (int64_t i = 0; i < n; ++i) r[i] = pc[i * st[0]] ? a[i * st[1]] : b[i * st[2]];
  });
}

void Where(sdk::KernelContext& ctx) {
  sdk::TensorView cond = ctx.RequiredInput(0), x = ctx.RequiredInput(1), y = ctx.RequiredInput(2);
  if (cond.ElemType() != KILN_ELEM_BOOL) Invalid("Where: condition must be bool");
  if (x.ElemType() != y.ElemType()) Invalid("Where: X and Y have different element types");
  BroadcastPlan<3> plan = MakeBroadcastPlan<3>({cond.Dims(), x.Dims(), y.Dims()});
  sdk::MutableTensor out = ctx.AllocOutput(0, x.ElemType(), plan.out_dims);
  const bool* c = Data<bool>(cond);
  if (x.ElemType() == KILN_ELEM_STRING) {
    ForEachRun(plan, [&](const std::array<int64_t, 3>& off, int64_t o, int64_t n, const std::array<int64_t, 3>& st) {
      for (int64_t i = 0; i < n; ++i)
        out.SetString(o + i, c[off[0] + i * st[0]] ? x.StringAt(off[1] + i * st[1]) : y.StringAt(off[2] + i * st[2]));
    });
    return;
  }
  switch (kiln_elem_type_size(x.ElemType())) {
    case 1: WhereLoop<uint8_t>(plan, c, x.Data(), y.Data(), out.MutableData()); break;
    case 2: WhereLoop<uint16_t>(plan, c, x.Data(), y.Data(), out.MutableData()); break;
    case 4: WhereLoop<uint32_t>(plan, c, x.Data(), y.Data(), out.MutableData()); break;
    case 8: WhereLoop<uint64_t>(plan, c, x.Data(), y.Data(), out.MutableData()); break;
    default: throw sdk::Unsupported("Where: element type " + std::to_string(x.ElemType()) + " is not handled");
  }
}

}  // namespace

KILN_PLUGIN_PART(EwLogicalCompare) {
  AddBinary<kBool>(reg, "And", 1, NoAttrs([](bool a, bool b) { return a && b; }));
  AddBinary<kBool>(reg, "Or", 1, NoAttrs([](bool a, bool b) { return a || b; }));
  AddBinary<kBool>(reg, "Xor", 1, NoAttrs([](bool a, bool b) { return a != b; }));
  AddBinary<kEqualTypes, true>(reg, "Equal", 1, NoAttrs([](auto a, auto b) { return a == b; }));
  AddBinary<kNumericTypes, true>(reg, "Greater", 1, NoAttrs([](auto a, auto b) { return a > b; }));
  AddBinary<kNumericTypes, true>(reg, "GreaterOrEqual", 12, NoAttrs([](auto a, auto b) { return a >= b; }));
  AddBinary<kNumericTypes, true>(reg, "Less", 1, NoAttrs([](auto a, auto b) { return a < b; }));
  AddBinary<kNumericTypes, true>(reg, "LessOrEqual", 12, NoAttrs([](auto a, auto b) { return a <= b; }));
  reg.AddKernelFn({.op_type = "Where", .since_version = 9, .flags = kFlags}, Where);
}

}  // namespace kiln::kernels
