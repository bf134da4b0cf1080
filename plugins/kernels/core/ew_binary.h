// Registration helper for element-wise binary kernels with multidirectional broadcasting (and the unidirectional
// `broadcast`/`axis` form of opsets before 7): one type dispatch per call, then BinaryLoop's run loops.
//
//   AddBinary<kNumericTypes>(reg, "Add", 7, NoAttrs([](auto a, auto b) { return a + b; }));
#pragma once

#include "core/ew_util.h"

#include <string>
#include <string_view>

namespace kiln::kernels::ew {

// Both inputs of one element type; the output has that type, or bool when kPredicate. make(ctx) returns the
// element function, a generic callable on two Compute<T> values.
template <typename List, bool kPredicate = false, typename Make>
void AddBinary(sdk::Registrar& reg, std::string_view op, int32_t since, Make make, int32_t until = 0) {
  std::string name(op);
  reg.AddKernelFn(
      {.op_type = op, .since_version = since, .until_version = until, .elem_types = ElemTypes<List>(), .flags = kFlags},
      [make, name](sdk::KernelContext& ctx) {
        sdk::TensorView a = ctx.RequiredInput(0), b = ctx.RequiredInput(1);
        if (a.ElemType() != b.ElemType())
          Invalid(name + ": inputs have different element types (" + std::to_string(a.ElemType()) + ", " +
                  std::to_string(b.ElemType()) + ")");
        Dims b_dims = LegacyBroadcastDims(ctx, a.Dims(), b.Dims());
        BroadcastPlan<2> plan = MakeBroadcastPlan<2>({a.Dims(), b_dims});
        auto f = make(ctx);
        Dispatch<List>(a.ElemType(), [&]<typename T>() {
          using C = Compute<T>;
          using O = std::conditional_t<kPredicate, bool, T>;
          sdk::MutableTensor y = ctx.AllocOutput(0, ElemTypeOf<O>(), plan.out_dims);
          BinaryLoop(plan, Data<T>(a), Data<T>(b), MutData<O>(y),
                     [&f](T x, T z) { return static_cast<O>(f(static_cast<C>(x), static_cast<C>(z))); });
        });
      });
}

}  // namespace kiln::kernels::ew
