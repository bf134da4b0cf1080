// A graph's values by name: an open-addressing table (linear probing) in two parallel arrays, the low 32 bits of
// each name's hash and its value, each name read from its value, so that the table holds no key of its own. It
// replaced an std::unordered_map<std::string_view, Value*>, whose node per entry (48 bytes besides its bucket) and
// chain walk made name lookups a sixth of reading the generated 1M-node chain; here a lookup reads one run of
// adjacent hashes and touches a value only where its 32 hash bits match. 12 bytes a slot, up to seven eighths of
// the slots used: the 1M-node chain's 1.67M values take 2M slots (24 MB), where (hash, value) pairs of 16 bytes at
// most three quarters used took 4M (64 MB). A run is scanned in its hash array, 16 slots to a cache line, so the
// longer runs of the higher load cost little.
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
  static uint32_t Hash(std::string_view name);
  // The slot holding `name`, or the empty slot that ends its run when none does. The table must not be empty.
  size_t Probe(uint32_t hash, std::string_view name) const;
  void Rehash(size_t capacity);

  // A power of two of slots, at most seven eighths used, or none. values_[i] null: slot i is empty (its hash 0).
  std::vector<uint32_t> hashes_;
  std::vector<Value*> values_;
  size_t size_ = 0;
};

}  // namespace kiln
