// Binary arithmetic with multidirectional broadcasting: Add, Sub, Mul, Div, Pow (base and exponent of different
// types since opset 12), Mod (fmod attribute) and BitShift. Integer division or modulo by zero is an error.
#include "core/ew_binary.h"
#include <kiln/kiln_plugin_parts.hpp>

#include <cmath>
#include <string>
#include <type_traits>

namespace kiln::kernels {
namespace {

using namespace ew;

template <typename C>
void CheckDivisor(C b, const char* op) {
  if constexpr (std::is_integral_v<C>)
    if (b == C(0)) Invalid(std::string(op) + ": integer division by zero");
}

// Integer power as numpy computes it (repeated squaring, wrapping); negative exponents give 1/base truncated.
template <typename B, typename E>
B IntPow(B base, E exp) {
  if constexpr (std::is_signed_v<E>) {
    if (exp < 0) {
      if (base == B(1)) return B(1);
      if constexpr (std::is_signed_v<B>)
        if (base == B(-1)) return (exp % 2) ? B(-1) : B(1);
      return B(0);
    }
  }
  B result = 1;
  std::make_unsigned_t<E> e = static_cast<std::make_unsigned_t<E>>(exp);
  while (e) {
    if (e & 1) result = static_cast<B>(result * base);
    base = static_cast<B>(base * base);
    e >>= 1;
  }
  return result;
}

// Pow: the output has the base's type. Integer base and exponent: integer power; otherwise pow in float when both
// are float or narrower, double when either is double or an integer. A scalar exponent of 1, 2 or 0.5 takes a
// shortcut (x, x*x, sqrt), as decomposed LayerNorm/GELU graphs use it.
void Pow(sdk::KernelContext& ctx) {
  sdk::TensorView a = ctx.RequiredInput(0), b = ctx.RequiredInput(1);
  Dims b_dims = LegacyBroadcastDims(ctx, a.Dims(), b.Dims());
  BroadcastPlan<2> plan = MakeBroadcastPlan<2>({a.Dims(), b_dims});
  sdk::MutableTensor y = ctx.AllocOutput(0, a.ElemType(), plan.out_dims);
  Dispatch<kNumericTypes>(a.ElemType(), [&]<typename T>() {
    using CT = Compute<T>;
    const T* pa = Data<T>(a);
    T* out = MutData<T>(y);
    if constexpr (std::is_floating_point_v<CT>) {
      if (b.ElementCount() == 1 && plan.count == a.ElementCount()) {
        const double e = ToDoubles(b)[0];
        const int64_t n = plan.count;
        if (e == 1.0) {
          std::copy(pa, pa + n, out);
          return;
        }
        if (e == 2.0) {
          for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(static_cast<CT>(pa[i]) * static_cast<CT>(pa[i]));
          return;
        }
        if (e == 0.5) {
          for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(std::sqrt(static_cast<CT>(pa[i])));
          return;
        }
      }
    }
    Dispatch<kNumericTypes>(b.ElemType(), [&]<typename E>() {
      using CE = Compute<E>;
      BinaryLoop(plan, pa, Data<E>(b), out, [](T x, E z) {
        if constexpr (std::is_integral_v<CT> && std::is_integral_v<CE>) {
          return IntPow<CT, CE>(static_cast<CT>(x), static_cast<CE>(z));
        } else if constexpr (std::is_same_v<CT, float> && std::is_same_v<CE, float>) {
          return static_cast<T>(std::pow(static_cast<float>(x), static_cast<float>(z)));
        } else {
          return static_cast<T>(std::pow(static_cast<double>(static_cast<CT>(x)),
                                         static_cast<double>(static_cast<CE>(z))));
        }
      });
    });
  });
}

}  // namespace

KILN_PLUGIN_PART(EwBinaryArith) {
  AddBinary<kNumericTypes>(reg, "Add", 1, NoAttrs([](auto a, auto b) { return a + b; }));
  AddBinary<kNumericTypes>(reg, "Sub", 1, NoAttrs([](auto a, auto b) { return a - b; }));
  AddBinary<kNumericTypes>(reg, "Mul", 1, NoAttrs([](auto a, auto b) { return a * b; }));
  AddBinary<kNumericTypes>(reg, "Div", 1, NoAttrs([](auto a, auto b) {
                             CheckDivisor(b, "Div");
                             return a / b;
                           }));
  reg.AddKernelFn({.op_type = "Pow", .since_version = 1, .elem_types = ElemTypes<kNumericTypes>(), .flags = kFlags},
                  Pow);
  // fmod = 0: the result takes the divisor's sign (Python's %); fmod = 1: the dividend's (C's fmod).
  AddBinary<kNumericTypes>(reg, "Mod", 10, [](sdk::KernelContext& ctx) {
    const bool fmod = ctx.GetInt("fmod", 0) != 0;
    return [fmod](auto a, auto b) {
      using C = decltype(a);
      CheckDivisor(b, "Mod");
      C r;
      if constexpr (std::is_floating_point_v<C>) r = std::fmod(a, b);
      else r = static_cast<C>(a % b);
      if constexpr (std::is_signed_v<C>)
        if (!fmod && r != C(0) && ((r < C(0)) != (b < C(0)))) r = static_cast<C>(r + b);
      return r;
    };
  });
  AddBinary<kUnsignedIntTypes>(reg, "BitShift", 11, [](sdk::KernelContext& ctx) {
    const std::string direction = ctx.GetString("direction", "");
    if (direction != "LEFT" && direction != "RIGHT")
      Invalid("BitShift: direction must be LEFT or RIGHT, not '" + direction + "'");
    const bool left = direction == "LEFT";
    return [left](auto a, auto b) {
      using C = decltype(a);
      if (b >= static_cast<C>(sizeof(C) * 8)) return C(0);
      return static_cast<C>(left ? a << b : a >> b);
    };
  });
}

}  // namespace kiln::kernels
