#include "ir/name.h"

#include <limits>
#include <ostream>
#include <stdexcept>

#include "ir/name_arena.h"

namespace kiln {

Name::Name(std::string_view s) { Assign(s); }

Name& Name::operator=(Name&& o) noexcept {
  if (this != &o) {
    Free();
    std::memcpy(raw_, o.raw_, sizeof raw_);
    o.SetInPlaceSize(0);
  }
  return *this;
}

Name& Name::operator=(std::string_view s) {
  if (data() == s.data() && size() == s.size()) return *this;
  Name copy(s);  // s may lie inside this name
  return *this = std::move(copy);
}

Name::Name(std::string_view s, NameArena& arena) { Assign(s, &arena); }

void Name::SetOutOfPlace(const char* p, std::string_view s, char where) {
  const auto n = static_cast<uint32_t>(s.size());
  std::memcpy(raw_, &p, sizeof p);
  std::memcpy(raw_ + sizeof p, &n, sizeof n);
  raw_[kInPlace] = where;
}

void Name::Assign(std::string_view s, NameArena* arena) {
  if (s.size() <= kInPlace) {
    if (!s.empty()) std::memcpy(raw_, s.data(), s.size());
    SetInPlaceSize(s.size());
    return;
  }
  if (s.size() > std::numeric_limits<uint32_t>::max()) throw std::length_error("kiln::Name: a name of 4 GiB or more");
  if (arena != nullptr) {
    SetOutOfPlace(arena->Copy(s), s, kArena);
    return;
  }
  char* p = new char[s.size() + 1];
  std::memcpy(p, s.data(), s.size());
  p[s.size()] = '\0';
  SetOutOfPlace(p, s, kHeap);
}

std::string Name::Concat(std::string_view a, std::string_view b) {
  std::string s;
  s.reserve(a.size() + b.size());
  s.append(a).append(b);
  return s;
}

std::ostream& operator<<(std::ostream& os, const Name& n) { return os << n.view(); }

}  // namespace kiln
