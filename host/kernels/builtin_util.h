// Helpers private to the host's built-in kernels: type dispatch over the element types they handle, broadcasting,
// reading integer tensors (shapes, axes) and attribute-or-input arguments.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/node.h"
#include "kernels/kernel_call.h"
#include "kernels/kernel_registry.h"
#include "support/error.h"

namespace kiln::builtin {

using Dims = std::vector<int64_t>;

// Calls fn.template operator()<T>() for float, double, int32, int64 (and bool when with_bool); returns false for
// any other type so the kernel can answer unsupported.
template <typename Fn>
bool DispatchNumeric(DataType t, Fn&& fn, bool with_bool = false) {
  switch (t) {
    case DataType::kFloat: fn.template operator()<float>(); return true;
    case DataType::kDouble: fn.template operator()<double>(); return true;
    case DataType::kInt32: fn.template operator()<int32_t>(); return true;
    case DataType::kInt64: fn.template operator()<int64_t>(); return true;
    case DataType::kBool:
      if (!with_bool) return false;
      fn.template operator()<uint8_t>();
      return true;
    default: return false;
  }
}

inline int64_t Count(const Dims& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

inline Dims Strides(const Dims& d) {
  Dims s(d.size(), 1);
  for (size_t i = d.size(); i-- > 1;) s[i - 1] = s[i] * d[i];
  return s;
}

inline int64_t Axis(int64_t axis, int64_t rank, const Node& n) {
  if (axis < -rank || axis >= rank)
    throw ModelError("node '" + n.name() + "': axis " + std::to_string(axis) + " is out of range for rank " +
                     std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

Dims BroadcastDims(const Dims& a, const Dims& b, const Node& n);
// For each element of `out`, the index into a tensor of dims `in` broadcast to it.
std::vector<int64_t> BroadcastIndices(const Dims& in, const Dims& out);
// The values of an int32 or int64 tensor as int64.
std::vector<int64_t> ReadInts(const Tensor& t);
// Input `i` as int64 values when present, else the attribute `attr` (for ops whose argument moved from an
// attribute to an input across opsets). `present` is set when either was given.
std::vector<int64_t> IntsFromInputOrAttr(const KernelCall& call, size_t i, const char* attr, bool* present);

void RegisterBuiltinShapeKernels(KernelRegistry& r);
void RegisterBuiltinMathKernels(KernelRegistry& r);
void RegisterBuiltinDataKernels(KernelRegistry& r);

// Adds a built-in kernel for `op` in the default domain.
inline void Add(KernelRegistry& r, const char* op, KernelFn fn, int64_t since = 1) {
  KernelDef d;
  d.op_type = op;
  d.since = since;
  d.fn = std::move(fn);
  d.level = KernelLevel::kBuiltin;
  r.Add(std::move(d));
}

}  // namespace kiln::builtin
