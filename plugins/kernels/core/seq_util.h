// Helpers shared by the rnn/, signal/, detection/, resize/ and misc/ kernel families: typed access to tensor
// data (float16/bfloat16 included, which the SDK's Values<T>() does not name), reading small control inputs
// (scalars, shape lists) of any integer or float type, and invalid-argument errors.
#pragma once

#include "core/elem_types.h"
#include "core/shape_util.h"

#include <kiln/kiln_plugin.hpp>

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace kiln::kernels::seq {

[[noreturn]] inline void Invalid(const std::string& msg) { throw sdk::Error(msg, KILN_STATUS_INVALID_ARGUMENT); }

// The elements of t as T (T is the C++ type of t's element type, half and bfloat16 included).
template <typename T>
std::span<const T> Data(const sdk::TensorView& t) {
  if (t.ElemType() != ElemTypeOf<T>())
    Invalid("tensor of element type " + std::to_string(t.ElemType()) + " read as element type " +
            std::to_string(ElemTypeOf<T>()));
  return {static_cast<const T*>(t.Data()), static_cast<size_t>(t.ElementCount())};
}

template <typename T>
std::span<T> MutData(const sdk::MutableTensor& t) {
  if (t.ElemType() != ElemTypeOf<T>())
    Invalid("output of element type " + std::to_string(t.ElemType()) + " written as element type " +
            std::to_string(ElemTypeOf<T>()));
  return {static_cast<T*>(t.MutableData()), static_cast<size_t>(t.ElementCount())};
}

// Allocates output i with T's element type and returns its elements, zero-filled.
template <typename T>
std::span<T> AllocOut(sdk::KernelContext& ctx, size_t i, std::span<const int64_t> dims) {
  sdk::MutableTensor t = ctx.AllocOutput(i, ElemTypeOf<T>(), dims);
  std::span<T> out = MutData<T>(t);
  std::fill(out.begin(), out.end(), T(0));
  return out;
}

// The elements of a numeric tensor converted to U (ints, floats, half, bfloat16).
template <typename U>
std::vector<U> ReadAs(const sdk::TensorView& t) {
  std::vector<U> out;
  Dispatch<kNumericTypes>(t.ElemType(), [&]<typename T>() {
    auto v = Data<T>(t);
    out.reserve(v.size());
    for (const T& x : v) out.push_back(static_cast<U>(static_cast<Compute<T>>(x)));
  });
  return out;
}

inline std::vector<int64_t> ReadInts(const sdk::TensorView& t) {
  if (t.ElemType() != KILN_ELEM_INT64 && t.ElemType() != KILN_ELEM_INT32)
    Invalid("expected an int32 or int64 tensor, got element type " + std::to_string(t.ElemType()));
  return ReadAs<int64_t>(t);
}

// A one-element tensor (scalar or shape [1]) as U.
template <typename U>
U ReadScalar(const sdk::TensorView& t, const char* what) {
  if (t.ElementCount() != 1) Invalid(std::string(what) + " must hold exactly one element");
  return ReadAs<U>(t)[0];
}

// An optional input: null when the slot is empty or (opset 11 style) holds an empty tensor.
inline sdk::TensorView OptionalInput(sdk::KernelContext& ctx, size_t i) {
  if (i >= ctx.InputCount()) return sdk::TensorView();
  sdk::TensorView t = ctx.Input(i);
  if (t && t.ElementCount() == 0) return sdk::TensorView();
  return t;
}

// Whether output i is wanted (present in the node: the host reports every declared output slot).
inline bool HasOutput(sdk::KernelContext& ctx, size_t i) { return i < ctx.OutputCount(); }

template <typename T>
T FromCompute(Compute<T> v) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(std::nearbyint(static_cast<double>(v)));
  } else {
    return static_cast<T>(v);
  }
}

}  // namespace kiln::kernels::seq
