// TypeTable: see type_table.h.
#include "ir/type_table.h"

#include <functional>
#include <string>
#include <utility>

namespace kiln {
namespace {

size_t Mix(size_t h, size_t v) { return h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2)); }

// Everything Type::operator== compares, so that equal types hash equal.
size_t HashOf(const Type& t) {
  std::hash<std::string> str;
  size_t h = Mix(static_cast<size_t>(t.kind), static_cast<size_t>(t.elem));
  h = Mix(h, t.elem_declared);
  h = Mix(h, str(t.denotation()));
  if (t.kind == Type::Kind::kOpaque) h = Mix(Mix(h, str(t.opaque_domain())), str(t.opaque_name()));
  if (t.shape) {
    h = Mix(h, t.shape->rank() + 1);
    for (const Dim& d : t.shape->dims) {
      h = Mix(h, d.is_known() ? static_cast<size_t>(*d.value) : str(d.symbol()) ^ 0x5bd1e995u);
      if (!d.denotation().empty()) h = Mix(h, str(d.denotation()));
    }
  }
  if (t.inner) h = Mix(h, HashOf(*t.inner));
  return h;
}

}  // namespace

size_t TypeTable::Hash::operator()(const Type& t) const { return HashOf(t); }

const Type* TypeTable::Intern(Type t) {
  if (t == *None()) return None();
  return &*types_.insert(std::move(t)).first;
}

const Type* TypeTable::None() {
  static const Type none;
  return &none;
}

}  // namespace kiln
