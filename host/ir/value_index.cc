#include "ir/value_index.h"

#include <algorithm>
#include <bit>
#include <functional>
#include <utility>

#include "ir/value.h"

namespace kiln {

uint64_t ValueIndex::Hash(std::string_view name) { return std::hash<std::string_view>()(name); }

size_t ValueIndex::Probe(uint64_t hash, std::string_view name) const {
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.value == nullptr || (s.hash == hash && s.value->name() == name)) return i;
  }
}

Value* ValueIndex::Find(std::string_view name) const {
  if (size_ == 0) return nullptr;
  return slots_[Probe(Hash(name), name)].value;
}

void ValueIndex::Insert(Value* v) {
  Reserve(size_ + 1);
  const uint64_t hash = Hash(v->name());
  Slot& s = slots_[Probe(hash, v->name())];
  if (s.value == nullptr) ++size_;
  s = Slot{hash, v};
}

void ValueIndex::Erase(const Value* v) {
  if (size_ == 0) return;
  const size_t mask = slots_.size() - 1;
  size_t hole = Probe(Hash(v->name()), v->name());
  if (slots_[hole].value != v) return;
  --size_;
  // Backward shift: each later entry of the run whose home slot is not between the hole and itself moves into
  // the hole, so that every run stays unbroken from its entries' home slots (no tombstones).
  for (size_t j = (hole + 1) & mask; slots_[j].value != nullptr; j = (j + 1) & mask) {
    const size_t home = slots_[j].hash & mask;
    const bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
    if (stays) continue;
    slots_[hole] = slots_[j];
    hole = j;
  }
  slots_[hole] = Slot{};
}

void ValueIndex::Reserve(size_t n) {
  if (n * 4 <= slots_.size() * 3) return;
  Rehash(std::bit_ceil(std::max<size_t>(16, (n * 4 + 2) / 3)));
}

void ValueIndex::Rehash(size_t capacity) {
  std::vector<Slot> old = std::exchange(slots_, std::vector<Slot>(capacity));
  const size_t mask = capacity - 1;
  for (const Slot& s : old) {
    if (s.value == nullptr) continue;
    size_t i = s.hash & mask;
    while (slots_[i].value != nullptr) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

}  // namespace kiln
