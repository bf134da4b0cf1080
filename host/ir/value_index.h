// A graph's values by name: an open-addressing table (linear probing) of (hash, value) slots, each name read from
// its value, so that the table holds no key of its own. It replaced an std::unordered_map<std::string_view,
// Value*>, whose node per entry (48 bytes besides its bucket) and chain walk made name lookups a sixth of reading
// the generated 1M-node chain; here a lookup reads one run of adjacent slots and touches a value only where the
// whole 64-bit hash matches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace kiln {

class Value;

class ValueIndex {
 public:
  Value* Find(std::string_view name) const;
  // Maps v's name (not empty) to `v`, in place of any value mapped under that name.
  void Insert(Value* v);
  // Unmaps v's name where it maps to `v`; anything else is left as it is.
  void Erase(const Value* v);
  // Makes room for `n` entries in all, so that adding up to that many does not grow the table.
  void Reserve(size_t n);
  size_t size() const { return size_; }

 private:
  struct Slot {
    uint64_t hash = 0;
    Value* value = nullptr;  // null: empty
  };
  static uint64_t Hash(std::string_view name);
  // The slot holding `name`, or the empty slot that ends its run when none does. The table must not be empty.
  size_t Probe(uint64_t hash, std::string_view name) const;
  void Rehash(size_t capacity);

  std::vector<Slot> slots_;  // a power of two of them, at most three quarters used; or none
  size_t size_ = 0;
};

}  // namespace kiln
