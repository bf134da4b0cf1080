// Registration helpers for element-wise unary kernels: one type dispatch per call, then a plain loop over the
// elements computing in Compute<T> (float for float16/bfloat16).
//
//   AddUnary<kFloatTypes>(reg, "Exp", 6, [](sdk::KernelContext&) { return [](auto x) { return std::exp(x); }; });
#pragma once

#include "core/ew_util.h"

#include <string_view>

namespace kiln::kernels::ew {

template <typename T, typename O, typename F>
void UnaryLoop(const T* in, O* out, int64_t n, const F& f) {
  using C = Compute<T>;
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<O>(f(static_cast<C>(in[i])));
}

// A unary op whose output has the input's type and shape. make(ctx) reads the attributes and returns the element
// function, a generic callable on Compute<T>.
template <typename List, typename Make>
void AddUnary(sdk::Registrar& reg, std::string_view op, int32_t since, Make make, int32_t until = 0) {
  reg.AddKernelFn({.op_type = op, .since_version = since, .until_version = until, .elem_types = ElemTypes<List>(),
                   .flags = kFlags},
                  [make](sdk::KernelContext& ctx) {
                    sdk::TensorView x = ctx.RequiredInput(0);
                    auto f = make(ctx);
                    Dispatch<List>(x.ElemType(), [&]<typename T>() {
                      sdk::MutableTensor y = ctx.AllocOutput(0, x.ElemType(), x.Dims());
                      UnaryLoop<T, T>(Data<T>(x), MutData<T>(y), x.ElementCount(), f);
                    });
                  });
}

// A unary predicate: a bool output of the input's shape.
template <typename List, typename Make>
void AddUnaryPredicate(sdk::Registrar& reg, std::string_view op, int32_t since, Make make, int32_t until = 0) {
  reg.AddKernelFn({.op_type = op, .since_version = since, .until_version = until, .elem_types = ElemTypes<List>(),
                   .flags = kFlags},
                  [make](sdk::KernelContext& ctx) {
                    sdk::TensorView x = ctx.RequiredInput(0);
                    auto f = make(ctx);
                    Dispatch<List>(x.ElemType(), [&]<typename T>() {
                      sdk::MutableTensor y = ctx.AllocOutput(0, KILN_ELEM_BOOL, x.Dims());
                      UnaryLoop<T, bool>(Data<T>(x), MutData<bool>(y), x.ElementCount(), f);
                    });
                  });
}

}  // namespace kiln::kernels::ew
