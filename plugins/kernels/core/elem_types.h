// Element types for kernel code: the C++ type of each ONNX element type (float16 and bfloat16 through Eigen's
// Eigen::half and Eigen::bfloat16), and dispatch from a runtime element type to a template instantiation.
//
//   Dispatch<kFloatTypes>(t.ElemType(), [&]<typename T>() { ... });
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <Eigen/Core>
#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>

namespace kiln::kernels {

using half = Eigen::half;
using bfloat16 = Eigen::bfloat16;

template <typename... Ts>
struct TypeList {};

using kFloatTypes = TypeList<float, double, half, bfloat16>;
using kSignedIntTypes = TypeList<int8_t, int16_t, int32_t, int64_t>;
using kUnsignedIntTypes = TypeList<uint8_t, uint16_t, uint32_t, uint64_t>;
using kIntTypes = TypeList<int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t>;
using kNumericTypes = TypeList<float, double, half, bfloat16, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t,
                               uint32_t, uint64_t>;
using kAllPodTypes = TypeList<float, double, half, bfloat16, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t,
                              uint32_t, uint64_t, bool>;

// The ONNX element-type number of T.
template <typename T>
constexpr int32_t ElemTypeOf() {
  if constexpr (std::is_same_v<T, float>) return KILN_ELEM_FLOAT;
  else if constexpr (std::is_same_v<T, double>) return KILN_ELEM_DOUBLE;
  else if constexpr (std::is_same_v<T, half>) return KILN_ELEM_FLOAT16;
  else if constexpr (std::is_same_v<T, bfloat16>) return KILN_ELEM_BFLOAT16;
  else if constexpr (std::is_same_v<T, int8_t>) return KILN_ELEM_INT8;
  else if constexpr (std::is_same_v<T, int16_t>) return KILN_ELEM_INT16;
  else if constexpr (std::is_same_v<T, int32_t>) return KILN_ELEM_INT32;
  else if constexpr (std::is_same_v<T, int64_t>) return KILN_ELEM_INT64;
  else if constexpr (std::is_same_v<T, uint8_t>) return KILN_ELEM_UINT8;
  else if constexpr (std::is_same_v<T, uint16_t>) return KILN_ELEM_UINT16;
  else if constexpr (std::is_same_v<T, uint32_t>) return KILN_ELEM_UINT32;
  else if constexpr (std::is_same_v<T, uint64_t>) return KILN_ELEM_UINT64;
  else if constexpr (std::is_same_v<T, bool>) return KILN_ELEM_BOOL;
  else if constexpr (std::is_same_v<T, std::complex<float>>) return KILN_ELEM_COMPLEX64;
  else if constexpr (std::is_same_v<T, std::complex<double>>) return KILN_ELEM_COMPLEX128;
  else static_assert(sizeof(T) == 0, "no ONNX element type");
}

// Calls fn.template operator()<T>() for the T in `List` whose element type is `elem`; throws sdk::Unsupported
// (the host then tries its built-in kernels) when none matches.
template <typename... Ts, typename Fn>
decltype(auto) Dispatch(TypeList<Ts...>, int32_t elem, Fn&& fn) {
  using R = decltype(fn.template operator()<std::tuple_element_t<0, std::tuple<Ts...>>>());
  if constexpr (std::is_void_v<R>) {
    bool done = ((elem == ElemTypeOf<Ts>() ? (fn.template operator()<Ts>(), true) : false) || ...);
    if (!done) throw sdk::Unsupported("element type " + std::to_string(elem) + " is not handled");
  } else {
    R result{};
    bool done = ((elem == ElemTypeOf<Ts>() ? (result = fn.template operator()<Ts>(), true) : false) || ...);
    if (!done) throw sdk::Unsupported("element type " + std::to_string(elem) + " is not handled");
    return result;
  }
}

template <typename List, typename Fn>
decltype(auto) Dispatch(int32_t elem, Fn&& fn) {
  return Dispatch(List{}, elem, std::forward<Fn>(fn));
}

// Arithmetic in a wider type where 16-bit floats need it: float for half/bfloat16, T otherwise.
template <typename T>
using Compute = std::conditional_t<std::is_same_v<T, half> || std::is_same_v<T, bfloat16>, float, T>;

}  // namespace kiln::kernels
