#include "ir/name_arena.h"

#include <algorithm>
#include <cstring>

namespace kiln {

const char* NameArena::Copy(std::string_view s) {
  const size_t need = s.size() + 1;
  char* at;
  if (need > kLargestBlock / 4) {
    // A long name (a generated one can be any length) takes a block of its own, leaving the current one be.
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(need));
    reserved_ += need;
    at = blocks_.back().get();
  } else {
    if (need > left_) {
      // Blocks double up to the largest size: a small model takes a few KiB, a large one few blocks.
      block_ = std::min(block_ * 2, kLargestBlock);
      blocks_.push_back(std::make_unique_for_overwrite<char[]>(block_));
      reserved_ += block_;
      next_ = blocks_.back().get();
      left_ = block_;
    }
    at = next_;
    next_ += need;
    left_ -= need;
  }
  if (!s.empty()) std::memcpy(at, s.data(), s.size());
  at[s.size()] = '\0';
  return at;
}

}  // namespace kiln
