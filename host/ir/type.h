// The type of a value: a tensor with an element type and a shape whose dimensions are numbers or named symbols,
// or one of ONNX's other kinds (sparse tensor, sequence, map, optional, opaque). Recursive kinds share their
// element type; types are small and copied by value.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/data_type.h"

namespace kiln {

// One dimension: a known number, a named symbol ("batch"), or unknown.
struct Dim {
  std::optional<int64_t> value;
  std::string symbol;      // set when the dimension is symbolic
  std::string denotation;  // ONNX's optional dimension denotation, kept for round trips

  static Dim Known(int64_t v) { return Dim{v, {}, {}}; }
  static Dim Symbol(std::string s) { return Dim{std::nullopt, std::move(s), {}}; }
  bool is_known() const { return value.has_value(); }
  bool is_symbol() const { return !value && !symbol.empty(); }
  bool operator==(const Dim&) const = default;
};

// A shape of known rank. Unknown rank is an absent Shape (std::optional<Shape> in Type).
struct Shape {
  std::vector<Dim> dims;

  size_t rank() const { return dims.size(); }
  bool is_static() const;
  // Product of known dims; nullopt when a dim is not known or the product overflows int64.
  std::optional<int64_t> NumElements() const;
  std::string ToString() const;  // "[batch,3,224,224]"
  bool operator==(const Shape&) const = default;
};

struct Type {
  enum class Kind { kNone, kTensor, kSparseTensor, kSequence, kMap, kOptional, kOpaque };

  Kind kind = Kind::kNone;  // kNone: nothing is known about the value
  DataType elem = DataType::kUndefined;  // tensor and sparse tensor element type; map key type
  std::optional<Shape> shape;             // tensor and sparse tensor; absent when the rank is unknown
  std::shared_ptr<const Type> inner;      // sequence, optional and map value type
  std::string opaque_domain, opaque_name;
  std::string denotation;
  bool elem_declared = true;  // false when ONNX's elem_type field was absent (kept for round trips)

  static Type Tensor(DataType t, std::optional<Shape> s = std::nullopt);
  bool is_tensor() const { return kind == Kind::kTensor; }
  bool operator==(const Type& o) const;
  std::string ToString() const;
};

}  // namespace kiln
