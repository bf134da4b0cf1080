// The text of a model's value and node names longer than a Name keeps in place, copied one after another into
// blocks the model owns. A name on the heap took a block of its own, rounded up to the allocator's size class: the
// 1M-node chain's 2.67M names, 18 to 28 characters each, took 32 bytes each (81 MiB); packed they take their length
// plus one (58 MiB). Bytes stay for the model's life, as its TypeTable's entries do: a name that goes (a value
// removed, a value renamed) leaves its bytes behind, where a heap name's block went back to the allocator. A compile
// makes few names beside those it reads, so little is left behind: the 1M-node chain's O2 compile, which replaces
// its million nodes by 333k fused ones, peaks 24 MiB lower with the arena, as much as the load itself saves.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

namespace kiln {

class NameArena {
 public:
  NameArena() = default;
  NameArena(const NameArena&) = delete;
  NameArena& operator=(const NameArena&) = delete;

  // A copy of `s` followed by a NUL, valid for the arena's life.
  const char* Copy(std::string_view s);
  // Bytes taken from the system so far (the blocks' sizes).
  size_t reserved_bytes() const { return reserved_; }

 private:
  static constexpr size_t kFirstBlock = 4096, kLargestBlock = 256 << 10;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* next_ = nullptr;  // the free rest of the last block
  size_t left_ = 0;
  size_t block_ = kFirstBlock / 2;  // the last block's size
  size_t reserved_ = 0;
};

}  // namespace kiln
