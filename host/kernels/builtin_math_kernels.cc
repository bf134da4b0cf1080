// Built-in element-wise and reduction kernels for shape arithmetic: Add, Sub, Mul, Div, Max, Min (broadcasting),
// Equal, Greater, Less, Not, Neg, Abs, Sqrt, Reciprocal, ReduceProd. Signed integers wrap around on overflow (two's
// complement, as ONNX Runtime and numpy compute them) rather than overflowing, which C++ leaves undefined.
#include <cmath>
#include <functional>
#include <limits>
#include <type_traits>

#include "kernels/builtin_util.h"

namespace kiln::builtin {
namespace {

// Signed types whose arithmetic C++ does not promote to a wider type (int and wider): computed as unsigned.
template <typename T>
constexpr bool kWraps = std::is_integral_v<T> && std::is_signed_v<T> && sizeof(T) >= sizeof(int);

// op on x and y, wrapping around for kWraps types.
template <typename Op>
auto Wrapping(Op op) {
  return [op](auto x, auto y) {
    using T = decltype(x);
    if constexpr (kWraps<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(op(static_cast<U>(x), static_cast<U>(y)));
    } else {
      return op(x, y);
    }
  };
}

template <typename T>
T WrappingNeg(T x) {
  if constexpr (kWraps<T>) return static_cast<T>(std::make_unsigned_t<T>(0) - static_cast<std::make_unsigned_t<T>>(x));
  else return static_cast<T>(-x);
}

// A binary broadcasting kernel producing `OutBool ? bool : T`, folded over every input (Max/Min are variadic).
template <bool OutBool, typename Op>
KernelFn Binary(Op op) {
  return [op](KernelCall& c) {
    const Tensor& a = c.tensor(0);
    bool ok = DispatchNumeric(a.type(), [&]<typename T>() {
      Dims out = a.dims();
      for (size_t i = 1; i < c.num_inputs(); ++i) {
        if (c.tensor(i).type() != a.type()) throw ModelError(c.node().op_type() + ": inputs differ in type");
        out = BroadcastDims(out, c.tensor(i).dims(), c.node());
      }
      using O = std::conditional_t<OutBool, uint8_t, T>;
      std::vector<T> acc(static_cast<size_t>(Count(out)));
      auto ai = BroadcastIndices(a.dims(), out);
      auto av = a.values<T>();
      for (size_t k = 0; k < acc.size(); ++k) acc[k] = av[ai[k]];
      O* dst = c.AllocateOutputAs<O>(0, OutBool ? DataType::kBool : a.type(), out);
      if (c.num_inputs() == 1) {
        for (size_t k = 0; k < acc.size(); ++k) dst[k] = static_cast<O>(acc[k]);
        return;
      }
      for (size_t i = 1; i < c.num_inputs(); ++i) {
        auto bi = BroadcastIndices(c.tensor(i).dims(), out);
        auto bv = c.tensor(i).values<T>();
        const bool last = i + 1 == c.num_inputs();
        for (size_t k = 0; k < acc.size(); ++k) {
          auto r = op(acc[k], bv[bi[k]]);
          if (last) dst[k] = static_cast<O>(r);
          else acc[k] = static_cast<T>(r);
        }
      }
    }, /*with_bool=*/OutBool);
    return ok ? KernelResult::kDone : KernelResult::kUnsupported;
  };
}

template <typename Op>
KernelFn Unary(Op op, bool floats_only) {
  return [op, floats_only](KernelCall& c) {
    const Tensor& x = c.tensor(0);
    if (floats_only && x.type() != DataType::kFloat && x.type() != DataType::kDouble) return KernelResult::kUnsupported;
    bool ok = DispatchNumeric(x.type(), [&]<typename T>() {
      auto in = x.values<T>();
      T* out = c.AllocateOutputAs<T>(0, x.type(), x.dims());
      for (size_t i = 0; i < in.size(); ++i) out[i] = static_cast<T>(op(in[i]));
    });
    return ok ? KernelResult::kDone : KernelResult::kUnsupported;
  };
}

KernelResult Div(KernelCall& c) {
  const Tensor& b = c.tensor(1);
  if (b.type() == DataType::kInt32 || b.type() == DataType::kInt64) {
    bool zero = false;
    DispatchNumeric(b.type(), [&]<typename T>() {
      for (T v : b.values<T>()) zero = zero || v == T(0);
    });
    if (zero) throw ModelError("Div: integer division by zero");
  }
  // The lowest value divided by -1 is its negation, wrapped (the one integer quotient that overflows).
  static const KernelFn div = Binary<false>([](auto x, auto y) {
    if constexpr (kWraps<decltype(x)>)
      if (y == decltype(y)(-1)) return WrappingNeg(x);
    return x / y;
  });
  return div(c);
}

KernelResult Not(KernelCall& c) {
  const Tensor& x = c.tensor(0);
  if (x.type() != DataType::kBool) return KernelResult::kUnsupported;
  auto in = x.values<uint8_t>();
  auto* out = c.AllocateOutputAs<uint8_t>(0, DataType::kBool, x.dims());
  for (size_t i = 0; i < in.size(); ++i) out[i] = !in[i];
  return KernelResult::kDone;
}

KernelResult ReduceProd(KernelCall& c) {
  const Tensor& x = c.tensor(0);
  bool given = false;
  auto axes = IntsFromInputOrAttr(c, 1, "axes", &given);
  const bool keep = c.node().GetInt("keepdims", 1) != 0;
  const int64_t r = static_cast<int64_t>(x.dims().size());
  if (axes.empty() && c.node().GetInt("noop_with_empty_axes", 0) != 0) {
    c.SetOutput(0, c.input(0));
    return KernelResult::kDone;
  }
  std::vector<bool> reduce(static_cast<size_t>(r), axes.empty());
  for (int64_t a : axes) reduce[static_cast<size_t>(Axis(a, r, c.node()))] = true;
  Dims out_keep = x.dims(), out;
  for (size_t i = 0; i < out_keep.size(); ++i) {
    if (reduce[i]) out_keep[i] = 1;
    if (!reduce[i] || keep) out.push_back(out_keep[i]);
  }
  bool ok = DispatchNumeric(x.type(), [&]<typename T>() {
    std::vector<T> acc(static_cast<size_t>(Count(out_keep)), T(1));
    auto idx = BroadcastIndices(out_keep, x.dims());  // output cell of each input element
    auto in = x.values<T>();
    for (size_t k = 0; k < in.size(); ++k) acc[idx[k]] = Wrapping(std::multiplies<>())(acc[idx[k]], in[k]);
    T* dst = c.AllocateOutputAs<T>(0, x.type(), out);
    std::copy(acc.begin(), acc.end(), dst);
  });
  return ok ? KernelResult::kDone : KernelResult::kUnsupported;
}

}  // namespace

void RegisterBuiltinMathKernels(KernelRegistry& r) {
  Add(r, "Add", Binary<false>(Wrapping(std::plus<>())));
  Add(r, "Sub", Binary<false>(Wrapping(std::minus<>())));
  Add(r, "Mul", Binary<false>(Wrapping(std::multiplies<>())));
  Add(r, "Div", Div);
  Add(r, "Max", Binary<false>([](auto x, auto y) { return x > y ? x : y; }));
  Add(r, "Min", Binary<false>([](auto x, auto y) { return x < y ? x : y; }));
  Add(r, "Equal", Binary<true>([](auto x, auto y) { return x == y; }));
  Add(r, "Greater", Binary<true>([](auto x, auto y) { return x > y; }));
  Add(r, "Less", Binary<true>([](auto x, auto y) { return x < y; }));
  Add(r, "Not", Not);
  Add(r, "Neg", Unary([](auto x) { return WrappingNeg(x); }, false));
  Add(r, "Abs", Unary([](auto x) { return x < 0 ? WrappingNeg(x) : x; }, false));
  Add(r, "Sqrt", Unary([](auto x) { return std::sqrt(x); }, true));
  Add(r, "Reciprocal", Unary([](auto x) { return decltype(x)(1) / x; }, true));
  Add(r, "ReduceProd", ReduceProd);
}

}  // namespace kiln::builtin
