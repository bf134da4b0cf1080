// The type of a value: a tensor with an element type and a shape whose dimensions are numbers or named symbols,
// or one of ONNX's other kinds (sparse tensor, sequence, map, optional, opaque). Recursive kinds share their
// element type; types are small and copied by value.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/data_type.h"

namespace kiln {

// The names a dimension or a type rarely has, out of line and shared between copies (see Dim and Type).
template <size_t N>
class RareNames {
 public:
  const std::string& Get(size_t i) const { return names_ ? (*names_)[i] : Empty(); }
  void Set(size_t i, std::string s) {
    if (s == Get(i)) return;
    auto copy = names_ ? std::make_shared<std::array<std::string, N>>(*names_)
                       : std::make_shared<std::array<std::string, N>>();
    (*copy)[i] = std::move(s);
    bool any = false;
    for (const std::string& n : *copy) any = any || !n.empty();
    names_ = any ? std::move(copy) : nullptr;
  }
  bool operator==(const RareNames& o) const {
    if (names_ == o.names_) return true;
    for (size_t i = 0; i < N; ++i)
      if (Get(i) != o.Get(i)) return false;
    return true;
  }

 private:
  static const std::string& Empty() {
    static const std::string empty;
    return empty;
  }
  std::shared_ptr<const std::array<std::string, N>> names_;  // null when every name is empty
};

// One dimension: a known number, a named symbol ("batch"), or unknown. 32 bytes: a graph holds one per dimension of
// every value, and most have no symbol and no denotation, so those two are out of line (RareNames).
struct Dim {
  std::optional<int64_t> value;

  const std::string& symbol() const { return names_.Get(0); }  // set when the dimension is symbolic
  const std::string& denotation() const { return names_.Get(1); }  // ONNX's optional denotation, kept for round trips
  void set_symbol(std::string s) { names_.Set(0, std::move(s)); }
  void set_denotation(std::string d) { names_.Set(1, std::move(d)); }

  static Dim Known(int64_t v) {
    Dim d;
    d.value = v;
    return d;
  }
  static Dim Symbol(std::string s) {
    Dim d;
    d.set_symbol(std::move(s));
    return d;
  }
  bool is_known() const { return value.has_value(); }
  bool is_symbol() const { return !value && !symbol().empty(); }
  bool operator==(const Dim&) const = default;

 private:
  RareNames<2> names_;
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
  bool elem_declared = true;  // false when ONNX's elem_type field was absent (kept for round trips)

  // Opaque types' domain and name, and ONNX's type denotation: rare, so out of line (RareNames).
  const std::string& opaque_domain() const { return names_.Get(0); }
  const std::string& opaque_name() const { return names_.Get(1); }
  const std::string& denotation() const { return names_.Get(2); }
  void set_opaque_domain(std::string s) { names_.Set(0, std::move(s)); }
  void set_opaque_name(std::string s) { names_.Set(1, std::move(s)); }
  void set_denotation(std::string s) { names_.Set(2, std::move(s)); }

  static Type Tensor(DataType t, std::optional<Shape> s = std::nullopt);
  bool is_tensor() const { return kind == Kind::kTensor; }
  bool operator==(const Type& o) const;
  std::string ToString() const;

 private:
  RareNames<3> names_;
};

}  // namespace kiln
