// Element-wise unary math: Abs, Neg, Sign, Exp, Log, Sqrt, Reciprocal, Floor, Ceil, Round, Erf, the trigonometric
// and hyperbolic functions and their inverses, IsNaN, IsInf and Not. Float16/bfloat16 compute in float.
#include "core/ew_unary.h"
#include <kiln/kiln_plugin_parts.hpp>

#include <cmath>
#include <type_traits>

namespace kiln::kernels {
namespace {

using namespace ew;
using kSignedTypes = TypeList<float, double, half, bfloat16, int8_t, int16_t, int32_t, int64_t>;

template <typename C>
constexpr bool kUnsigned = std::is_unsigned_v<C>;

}  // namespace

KILN_PLUGIN_PART(EwUnaryMath) {
  AddUnary<kNumericTypes>(reg, "Abs", 1, NoAttrs([](auto x) {
                            using C = decltype(x);
                            if constexpr (kUnsigned<C>) return x;
                            else return static_cast<C>(x < C(0) ? -x : x);
                          }));
  AddUnary<kSignedTypes>(reg, "Neg", 1, NoAttrs([](auto x) { return static_cast<decltype(x)>(-x); }));
  AddUnary<kNumericTypes>(reg, "Sign", 9, NoAttrs([](auto x) {
                            using C = decltype(x);
                            if constexpr (kUnsigned<C>) return static_cast<C>(x > C(0) ? 1 : 0);
                            else return x > C(0) ? C(1) : x < C(0) ? C(-1) : x;  // NaN stays NaN
                          }));

  AddUnary<kFloatTypes>(reg, "Exp", 1, NoAttrs([](auto x) { return std::exp(x); }));
  AddUnary<kFloatTypes>(reg, "Log", 1, NoAttrs([](auto x) { return std::log(x); }));
  AddUnary<kFloatTypes>(reg, "Sqrt", 1, NoAttrs([](auto x) { return std::sqrt(x); }));
  AddUnary<kFloatTypes>(reg, "Reciprocal", 1, NoAttrs([](auto x) { return decltype(x)(1) / x; }));
  AddUnary<kFloatTypes>(reg, "Floor", 1, NoAttrs([](auto x) { return std::floor(x); }));
  AddUnary<kFloatTypes>(reg, "Ceil", 1, NoAttrs([](auto x) { return std::ceil(x); }));
  // Halves round to even (the default rounding mode).
  AddUnary<kFloatTypes>(reg, "Round", 11, NoAttrs([](auto x) { return std::nearbyint(x); }));
  AddUnary<kFloatTypes>(reg, "Erf", 9, NoAttrs([](auto x) { return std::erf(x); }));

  AddUnary<kFloatTypes>(reg, "Sin", 7, NoAttrs([](auto x) { return std::sin(x); }));
  AddUnary<kFloatTypes>(reg, "Cos", 7, NoAttrs([](auto x) { return std::cos(x); }));
  AddUnary<kFloatTypes>(reg, "Tan", 7, NoAttrs([](auto x) { return std::tan(x); }));
  AddUnary<kFloatTypes>(reg, "Asin", 7, NoAttrs([](auto x) { return std::asin(x); }));
  AddUnary<kFloatTypes>(reg, "Acos", 7, NoAttrs([](auto x) { return std::acos(x); }));
  AddUnary<kFloatTypes>(reg, "Atan", 7, NoAttrs([](auto x) { return std::atan(x); }));
  AddUnary<kFloatTypes>(reg, "Sinh", 9, NoAttrs([](auto x) { return std::sinh(x); }));
  AddUnary<kFloatTypes>(reg, "Cosh", 9, NoAttrs([](auto x) { return std::cosh(x); }));
  AddUnary<kFloatTypes>(reg, "Asinh", 9, NoAttrs([](auto x) { return std::asinh(x); }));
  AddUnary<kFloatTypes>(reg, "Acosh", 9, NoAttrs([](auto x) { return std::acosh(x); }));
  AddUnary<kFloatTypes>(reg, "Atanh", 9, NoAttrs([](auto x) { return std::atanh(x); }));

  AddUnaryPredicate<kFloatTypes>(reg, "IsNaN", 9, NoAttrs([](auto x) { return std::isnan(x); }));
  AddUnaryPredicate<kFloatTypes>(reg, "IsInf", 10, [](sdk::KernelContext& ctx) {
    const bool neg = ctx.GetInt("detect_negative", 1) != 0, pos = ctx.GetInt("detect_positive", 1) != 0;
    return [neg, pos](auto x) { return std::isinf(x) && (x > 0 ? pos : neg); };
  });
  AddUnary<TypeList<bool>>(reg, "Not", 1, NoAttrs([](bool x) { return !x; }));
}

}  // namespace kiln::kernels
