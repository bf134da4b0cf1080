#include "ir/data_type.h"

#include <array>

namespace kiln {
namespace {

struct TypeInfo {
  size_t size;
  std::string_view name;
};

constexpr std::array<TypeInfo, 17> kTypes = {{
    {0, "undefined"}, {4, "float"},  {1, "uint8"},  {1, "int8"},       {2, "uint16"},      {2, "int16"},
    {4, "int32"},     {8, "int64"},  {0, "string"}, {1, "bool"},       {2, "float16"},     {8, "double"},
    {4, "uint32"},    {8, "uint64"}, {8, "complex64"}, {16, "complex128"}, {2, "bfloat16"},
}};

}  // namespace

size_t ElementSize(DataType t) {
  auto i = static_cast<size_t>(t);
  return i < kTypes.size() ? kTypes[i].size : 0;
}

size_t ElementAlignment(DataType t) {
  const size_t elem = ElementSize(t);
  return elem == 0 || elem > 8 ? 8 : elem;
}

std::string_view DataTypeName(DataType t) {
  auto i = static_cast<size_t>(t);
  return i < kTypes.size() ? kTypes[i].name : std::string_view("unknown");
}

std::optional<DataType> DataTypeFromOnnx(int32_t n) {
  if (n < 0 || static_cast<size_t>(n) >= kTypes.size()) return std::nullopt;
  return static_cast<DataType>(n);
}

}  // namespace kiln
