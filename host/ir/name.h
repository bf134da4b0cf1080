// A value's or a node's name in 16 bytes: up to 15 characters in place, a longer name in a heap block of its length
// plus one or in its model's NameArena (NUL-terminated either way, for the C ABI's names). std::string took 32
// bytes in place, and its heap block for 16 characters or more alike. Those 16 bytes take a Value from 128 to 112
// bytes and, with its attributes out of line, a Node from 160 to 128: each one allocator size class down (the
// 1M-node chain holds 1.67M values and 1M nodes). A Name converts to std::string_view and std::string, and compares
// and concatenates like a string.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>

namespace kiln {

class NameArena;

class Name {
 public:
  Name() noexcept { SetInPlaceSize(0); }
  explicit Name(std::string_view s);
  // A name whose text, when longer than fits in place, is copied into `arena` (name_arena.h) instead of a heap block
  // of its own: the name, and any name moved from it, must not outlive the arena. A copy of it is a heap name.
  Name(std::string_view s, NameArena& arena);
  Name(const Name& o) : Name(o.view()) {}
  Name(Name&& o) noexcept {
    std::memcpy(raw_, o.raw_, sizeof raw_);
    o.SetInPlaceSize(0);
  }
  Name& operator=(const Name& o) { return *this = o.view(); }
  Name& operator=(Name&& o) noexcept;
  Name& operator=(std::string_view s);
  ~Name() { Free(); }

  std::string_view view() const { return {data(), size()}; }
  operator std::string_view() const { return view(); }  // NOLINT: a name reads as a string
  operator std::string() const { return std::string(view()); }  // NOLINT
  std::string str() const { return std::string(view()); }

  const char* data() const { return in_place() ? raw_ : OutOfPlaceData(); }
  const char* c_str() const { return data(); }
  size_t size() const { return in_place() ? kInPlace - static_cast<unsigned char>(raw_[kInPlace]) : OutOfPlaceSize(); }
  size_t length() const { return size(); }
  bool empty() const { return size() == 0; }
  const char* begin() const { return data(); }
  const char* end() const { return data() + size(); }
  char operator[](size_t i) const { return data()[i]; }
  char back() const { return data()[size() - 1]; }

  // What std::string's members of these names give.
  size_t find(std::string_view s, size_t pos = 0) const { return view().find(s, pos); }
  size_t find(char c, size_t pos = 0) const { return view().find(c, pos); }
  size_t rfind(std::string_view s, size_t pos = std::string::npos) const { return view().rfind(s, pos); }
  size_t rfind(char c, size_t pos = std::string::npos) const { return view().rfind(c, pos); }
  std::string substr(size_t pos = 0, size_t n = std::string::npos) const { return std::string(view().substr(pos, n)); }
  bool starts_with(std::string_view s) const { return view().starts_with(s); }
  bool ends_with(std::string_view s) const { return view().ends_with(s); }
  int compare(std::string_view s) const { return view().compare(s); }

  friend bool operator==(const Name& a, const Name& b) { return a.view() == b.view(); }
  friend bool operator==(const Name& a, std::string_view b) { return a.view() == b; }
  friend bool operator==(const Name& a, const char* b) { return a.view() == b; }
  friend bool operator==(const Name& a, const std::string& b) { return a.view() == b; }
  friend std::strong_ordering operator<=>(const Name& a, const Name& b) { return a.view() <=> b.view(); }
  friend std::strong_ordering operator<=>(const Name& a, std::string_view b) { return a.view() <=> b; }
  friend std::strong_ordering operator<=>(const Name& a, const char* b) { return a.view() <=> std::string_view(b); }
  friend std::strong_ordering operator<=>(const Name& a, const std::string& b) { return a.view() <=> b; }

  friend std::string operator+(const Name& a, std::string_view b) { return Concat(a.view(), b); }
  friend std::string operator+(std::string_view a, const Name& b) { return Concat(a, b.view()); }
  friend std::string operator+(const Name& a, const Name& b) { return Concat(a.view(), b.view()); }
  friend std::string operator+(const Name& a, const char* b) { return Concat(a.view(), b); }
  friend std::string operator+(const char* a, const Name& b) { return Concat(a, b.view()); }
  friend std::string operator+(const Name& a, const std::string& b) { return Concat(a.view(), b); }
  friend std::string operator+(const std::string& a, const Name& b) { return Concat(a, b.view()); }
  friend std::string operator+(const Name& a, char b) { return Concat(a.view(), std::string_view(&b, 1)); }
  friend std::ostream& operator<<(std::ostream& os, const Name& n);

 private:
  // raw_[kInPlace] is kInPlace - size for a name kept in place (so 0, the terminating NUL, at 15 characters), kHeap
  // for one on the heap and kArena for one in an arena, whose pointer and 32-bit size sit at the start of raw_.
  static constexpr size_t kInPlace = 15;
  static constexpr char kHeap = static_cast<char>(0x80);
  static constexpr char kArena = static_cast<char>(0x81);
  bool in_place() const { return raw_[kInPlace] != kHeap && raw_[kInPlace] != kArena; }
  const char* OutOfPlaceData() const {
    const char* p;
    std::memcpy(&p, raw_, sizeof p);
    return p;
  }
  size_t OutOfPlaceSize() const {
    uint32_t n;
    std::memcpy(&n, raw_ + sizeof(char*), sizeof n);
    return n;
  }
  void SetInPlaceSize(size_t n) {
    raw_[n] = '\0';
    raw_[kInPlace] = static_cast<char>(kInPlace - n);
  }
  // Points at `p`, the NUL-terminated text of s, held as `where` (kHeap or kArena).
  void SetOutOfPlace(const char* p, std::string_view s, char where);
  // Sets the text, out of place in `arena` when given, else on the heap; on a Name holding nothing of the heap.
  void Assign(std::string_view s, NameArena* arena = nullptr);
  void Free() {
    if (raw_[kInPlace] == kHeap) delete[] OutOfPlaceData();
  }
  static std::string Concat(std::string_view a, std::string_view b);

  char raw_[16];
};

}  // namespace kiln

template <>
struct std::hash<kiln::Name> {
  size_t operator()(const kiln::Name& n) const noexcept { return std::hash<std::string_view>()(n.view()); }
};
