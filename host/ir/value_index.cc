#include "ir/value_index.h"

#include <algorithm>
#include <bit>
#include <functional>
#include <utility>

#include "ir/value.h"

namespace kiln {

// The low half of std::hash: the home slot takes its low bits (a table has far fewer than 2^32 slots), and the
// rest screens out other names of the run before their values are read.
uint32_t ValueIndex::Hash(std::string_view name) {
  return static_cast<uint32_t>(std::hash<std::string_view>()(name));
}

size_t ValueIndex::Probe(uint32_t hash, std::string_view name) const {
  const size_t mask = values_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    if (values_[i] == nullptr || (hashes_[i] == hash && values_[i]->name() == name)) return i;
  }
}

Value* ValueIndex::Find(std::string_view name) const {
  if (size_ == 0) return nullptr;
  return values_[Probe(Hash(name), name)];
}

void ValueIndex::Insert(Value* v) {
  Reserve(size_ + 1);
  const uint32_t hash = Hash(v->name());
  const size_t i = Probe(hash, v->name());
  if (values_[i] == nullptr) ++size_;
  hashes_[i] = hash;
  values_[i] = v;
}

void ValueIndex::Erase(const Value* v) {
  if (size_ == 0) return;
  const size_t mask = values_.size() - 1;
  size_t hole = Probe(Hash(v->name()), v->name());
  if (values_[hole] != v) return;
  --size_;
  // Backward shift: each later entry of the run whose home slot is not between the hole and itself moves into
  // the hole, so that every run stays unbroken from its entries' home slots (no tombstones).
  for (size_t j = (hole + 1) & mask; values_[j] != nullptr; j = (j + 1) & mask) {
    const size_t home = hashes_[j] & mask;
    const bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
    if (stays) continue;
    hashes_[hole] = hashes_[j];
    values_[hole] = values_[j];
    hole = j;
  }
  hashes_[hole] = 0;
  values_[hole] = nullptr;
}

void ValueIndex::Reserve(size_t n) {
  if (n * 8 <= values_.size() * 7) return;
  Rehash(std::bit_ceil(std::max<size_t>(16, (n * 8 + 6) / 7)));
}

void ValueIndex::Rehash(size_t capacity) {
  std::vector<uint32_t> old_hashes = std::exchange(hashes_, std::vector<uint32_t>(capacity));
  std::vector<Value*> old_values = std::exchange(values_, std::vector<Value*>(capacity));
  const size_t mask = capacity - 1;
  for (size_t k = 0; k < old_values.size(); ++k) {
    if (old_values[k] == nullptr) continue;
    size_t i = old_hashes[k] & mask;
    while (values_[i] != nullptr) i = (i + 1) & mask;
    hashes_[i] = old_hashes[k];
    values_[i] = old_values[k];
  }
}

}  // namespace kiln
