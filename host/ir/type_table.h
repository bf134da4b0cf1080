// The distinct types of a model's values, each kept once. A graph of a million values has a few distinct types
// (the generated 1M-node chain: two), and a Type held by value is 80 bytes plus a heap block for its dimensions: a
// value points at its model's copy instead (Value::type). Entries stay for the model's life, so a pointer taken
// from the table (or a reference from Value::type) stays valid even after the value's type changes.
#pragma once

#include <cstddef>
#include <unordered_set>

#include "ir/type.h"

namespace kiln {

class TypeTable {
 public:
  // The table's copy of `t`: equal types give the same pointer.
  const Type* Intern(Type t);
  // The type of a value nothing is known about (Type()), shared by every table and valid for the process.
  static const Type* None();
  size_t size() const { return types_.size(); }

 private:
  struct Hash {
    size_t operator()(const Type& t) const;
  };
  std::unordered_set<Type, Hash> types_;
};

}  // namespace kiln
