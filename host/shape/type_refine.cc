// RefineType: see type_refine.h.
#include "shape/type_refine.h"

namespace kiln {

bool IsMadeUpSymbol(std::string_view s) { return s.rfind("unk__", 0) == 0; }

bool RefineType(Type& have, const Type& got) {
  if (got.kind == Type::Kind::kNone) return false;
  if (have.kind == Type::Kind::kNone) {
    have = got;
    return true;
  }
  if (have.kind != got.kind) return false;  // conflicting: trust the IR
  if (have.kind != Type::Kind::kTensor && have.kind != Type::Kind::kSparseTensor) return false;
  bool changed = false;
  if (have.elem == DataType::kUndefined && got.elem != DataType::kUndefined) {
    have.elem = got.elem;
    have.elem_declared = true;
    changed = true;
  }
  if (!got.shape) return changed;
  if (!have.shape) {
    have.shape = got.shape;
    return true;
  }
  if (have.shape->rank() != got.shape->rank()) return changed;  // conflicting rank: keep the IR's
  for (size_t i = 0; i < have.shape->rank(); ++i) {
    Dim& h = have.shape->dims[i];
    const Dim& g = got.shape->dims[i];
    if (h.is_known()) continue;
    if (g.is_known()) {
      h.value = g.value;
      h.set_symbol({});
      changed = true;
    } else if (g.is_symbol() && (!h.is_symbol() || (IsMadeUpSymbol(h.symbol()) && !IsMadeUpSymbol(g.symbol())))) {
      h.set_symbol(g.symbol());
      changed = true;
    }
  }
  return changed;
}

bool IsSaturated(const Type& t) {
  if (t.kind != Type::Kind::kTensor || t.elem == DataType::kUndefined || !t.shape) return false;
  for (const Dim& d : t.shape->dims)
    if (!d.is_known() && (!d.is_symbol() || IsMadeUpSymbol(d.symbol()))) return false;
  return true;
}

}  // namespace kiln
