#include "ir/name_set.h"

namespace kiln {

void NameSet::Build() {
  if (built_) return;
  built_ = true;
  collect_([this](std::string_view n) { ++counts_[Key(n)]; });
}

bool NameSet::Contains(std::string_view name) {
  Build();
  return counts_.find(Key(name)) != counts_.end();
}

void NameSet::Note(std::string_view name) {
  if (!built_) return;
  if (reserved_.empty() || reserved_.erase(std::string(name)) == 0) ++counts_[Key(name)];
}

void NameSet::Forget(std::string_view name) {
  if (!built_) return;
  auto it = counts_.find(Key(name));
  if (it != counts_.end() && --it->second == 0) counts_.erase(it);
}

std::string NameSet::Fresh(std::string_view hint) {
  Build();
  const std::string_view base = hint.empty() ? std::string_view("v") : hint;
  std::string name(base);
  // The first name no holder has, counted (reserved) as it is found.
  while (!counts_.try_emplace(Key(name), 1).second) name = std::string(base) + "__" + std::to_string(++fresh_counter_);
  reserved_.insert(name);
  return name;
}

}  // namespace kiln
