#include "ir/type.h"

namespace kiln {

bool Shape::is_static() const {
  for (const Dim& d : dims)
    if (!d.is_known()) return false;
  return true;
}

std::optional<int64_t> Shape::NumElements() const {
  int64_t n = 1;
  for (const Dim& d : dims) {
    if (!d.is_known() || *d.value < 0) return std::nullopt;
    if (__builtin_mul_overflow(n, *d.value, &n)) return std::nullopt;
  }
  return n;
}

std::string Shape::ToString() const {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ",";
    const Dim& d = dims[i];
    s += d.is_known() ? std::to_string(*d.value) : d.symbol().empty() ? std::string("?") : d.symbol();
  }
  return s + "]";
}

Type Type::Tensor(DataType t, std::optional<Shape> s) {
  Type ty;
  ty.kind = Kind::kTensor;
  ty.elem = t;
  ty.shape = std::move(s);
  return ty;
}

bool Type::operator==(const Type& o) const {
  if (kind != o.kind || elem != o.elem || shape != o.shape || !(names_ == o.names_) ||
      elem_declared != o.elem_declared)
    return false;
  if (!inner || !o.inner) return inner == o.inner;
  return *inner == *o.inner;
}

std::string Type::ToString() const {
  switch (kind) {
    case Kind::kNone: return "?";
    case Kind::kTensor:
      return std::string(DataTypeName(elem)) + (shape ? shape->ToString() : std::string("[*]"));
    case Kind::kSparseTensor:
      return "sparse_tensor(" + std::string(DataTypeName(elem)) + (shape ? shape->ToString() : "") + ")";
    case Kind::kSequence: return "seq(" + (inner ? inner->ToString() : "?") + ")";
    case Kind::kOptional: return "optional(" + (inner ? inner->ToString() : "?") + ")";
    case Kind::kMap:
      return "map(" + std::string(DataTypeName(elem)) + "," + (inner ? inner->ToString() : "?") + ")";
    case Kind::kOpaque: return "opaque(" + opaque_domain() + "." + opaque_name() + ")";
  }
  return "?";
}

}  // namespace kiln
