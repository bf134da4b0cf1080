// Tensor element types. The numbers are ONNX's TensorProto.DataType values, so they cross file formats and the
// plugin ABI unchanged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace kiln {

enum class DataType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kUInt8 = 2,
  kInt8 = 3,
  kUInt16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUInt32 = 12,
  kUInt64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
};

// Bytes per element; 0 for kUndefined and kString (strings have no fixed width).
size_t ElementSize(DataType t);
// The alignment kernels may assume for t's elements: the element size up to 8 (complex128 too), 8 for types without
// a fixed size. A weight whose bytes sit off it is copied before it is read typed (Buffer::AlignedSlice).
size_t ElementAlignment(DataType t);
// "float", "int64", ...: the names ONNX's text format uses.
std::string_view DataTypeName(DataType t);
// The type for an ONNX number, or nullopt when the number is not a known element type.
std::optional<DataType> DataTypeFromOnnx(int32_t onnx_number);

}  // namespace kiln
