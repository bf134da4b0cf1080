#include "ir/name_set.h"

#include <algorithm>
#include <bit>
#include <utility>

namespace kiln {

uint32_t* NameSet::Counts::Find(uint64_t key) {
  if (size_ == 0) return nullptr;
  const uint64_t k = Stored(key);
  const size_t mask = keys_.size() - 1;
  for (size_t i = Home(k); keys_[i] != 0; i = (i + 1) & mask)
    if (keys_[i] == k) return &counts_[i];
  return nullptr;
}

uint32_t& NameSet::Counts::operator[](uint64_t key) {
  if (uint32_t* c = Find(key)) return *c;
  if ((size_ + 1) * 8 > keys_.size() * 7) Rehash(std::max<size_t>(16, keys_.size() * 2));
  const uint64_t k = Stored(key);
  const size_t mask = keys_.size() - 1;
  size_t i = Home(k);
  while (keys_[i] != 0) i = (i + 1) & mask;
  keys_[i] = k;
  counts_[i] = 0;
  ++size_;
  return counts_[i];
}

void NameSet::Counts::Erase(uint64_t key) {
  uint32_t* c = Find(key);
  if (c == nullptr) return;
  // Backward-shift deletion: each later entry of the run that may move into the hole does, so that every entry
  // stays reachable from its home slot with no tombstones.
  const size_t mask = keys_.size() - 1;
  size_t hole = static_cast<size_t>(c - counts_.data());
  for (size_t j = (hole + 1) & mask; keys_[j] != 0; j = (j + 1) & mask) {
    const size_t home = Home(keys_[j]);
    // The entry at j may fill the hole unless its home lies cyclically in (hole, j].
    if (((j - home) & mask) >= ((j - hole) & mask)) {
      keys_[hole] = keys_[j];
      counts_[hole] = counts_[j];
      hole = j;
    }
  }
  keys_[hole] = 0;
  --size_;
}

void NameSet::Counts::Rehash(size_t capacity) {
  std::vector<uint64_t> old_keys = std::exchange(keys_, std::vector<uint64_t>(capacity));
  std::vector<uint32_t> old_counts = std::exchange(counts_, std::vector<uint32_t>(capacity));
  shift_ = 64 - std::countr_zero(capacity);
  const size_t mask = capacity - 1;
  for (size_t i = 0; i < old_keys.size(); ++i) {
    if (old_keys[i] == 0) continue;
    size_t at = Home(old_keys[i]);
    while (keys_[at] != 0) at = (at + 1) & mask;
    keys_[at] = old_keys[i];
    counts_[at] = old_counts[i];
  }
}

void NameSet::Build() {
  if (built_) return;
  built_ = true;
  collect_([this](std::string_view n) { ++counts_[Key(n)]; });
  for (const std::string& n : reserved_) ++counts_[Key(n)];  // reserved while the set was not built
}

bool NameSet::Taken(std::string_view name) {
  if (!built_ && holds_) {
    if (std::optional<bool> held = holds_(name))
      return *held || (!reserved_.empty() && reserved_.count(std::string(name)) != 0);
  }
  Build();
  return counts_.Find(Key(name)) != nullptr;
}

bool NameSet::Contains(std::string_view name) { return Taken(name); }

void NameSet::Note(std::string_view name) {
  const bool reserved = !reserved_.empty() && reserved_.erase(std::string(name)) != 0;
  if (built_ && !reserved) ++counts_[Key(name)];
}

void NameSet::Forget(std::string_view name) {
  if (!built_) return;
  uint32_t* count = counts_.Find(Key(name));
  if (count != nullptr && --*count == 0) counts_.Erase(Key(name));
}

std::string NameSet::Fresh(std::string_view hint) {
  const std::string_view base = hint.empty() ? std::string_view("v") : hint;
  std::string name(base);
  // The first name no holder has, reserved as it is found (and counted, once the set is built).
  while (Taken(name)) name = std::string(base) + "__" + std::to_string(++fresh_counter_);
  if (built_) counts_[Key(name)] = 1;
  reserved_.insert(name);
  return name;
}

}  // namespace kiln
