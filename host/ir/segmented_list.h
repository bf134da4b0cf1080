// A list that only grows at its end, in chunks that never move: 4 elements first, each next chunk twice the last,
// up to 4096 elements a chunk. The journal keeps its undo steps in one.
//
// It replaced an std::deque, whose first element costs three blocks (the deque, its 64-byte map and a 512-byte
// node) however few follow. Most journals hold a handful of steps, and a node pass keeps each changing call's
// journal to the end of its walk: folding the generated 1M-node foldchain kept 250,000 of them, 170 MB of deques.
// Chunks that never move keep what the deque was chosen for: a journal of millions of steps never holds two
// copies of its array, as a vector's doubling would. A chunk is raw storage, its elements made as they come: an
// array made by new[] carries a count before its elements, which takes a 4096-step chunk (128 KiB) past its
// allocator size class into the next (192 KiB).
#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace kiln {

template <typename T>
class SegmentedList {
 public:
  SegmentedList() = default;
  SegmentedList(SegmentedList&& o) noexcept
      : chunks_(std::move(o.chunks_)), size_(std::exchange(o.size_, 0)), used_(std::exchange(o.used_, 0)) {
    o.chunks_.clear();
  }
  SegmentedList& operator=(SegmentedList&& o) noexcept {
    if (this != &o) {
      clear();
      chunks_ = std::move(o.chunks_);
      o.chunks_.clear();
      size_ = std::exchange(o.size_, 0);
      used_ = std::exchange(o.used_, 0);
    }
    return *this;
  }
  ~SegmentedList() { clear(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  void push_back(T x) {
    if (chunks_.empty() || used_ == Capacity(chunks_.size() - 1)) {
      chunks_.reserve(chunks_.size() + 1);  // first, so that a throw leaves nothing allocated and unlisted
      chunks_.push_back(std::allocator<T>().allocate(Capacity(chunks_.size())));
      used_ = 0;
    }
    std::construct_at(chunks_.back() + used_, std::move(x));
    ++used_;
    ++size_;
  }

  // Calls fn on each element, the first first.
  template <typename Fn>
  void ForEach(Fn&& fn) {
    for (size_t c = 0; c < chunks_.size(); ++c)
      for (size_t i = 0, n = Used(c); i < n; ++i) fn(chunks_[c][i]);
  }

  // Calls fn on each element, the last first.
  template <typename Fn>
  void ForEachReverse(Fn&& fn) {
    for (size_t c = chunks_.size(); c-- > 0;)
      for (size_t i = Used(c); i-- > 0;) fn(chunks_[c][i]);
  }

  // Destroys every element and frees every chunk.
  void clear() {
    for (size_t c = 0; c < chunks_.size(); ++c) {
      std::destroy_n(chunks_[c], Used(c));
      std::allocator<T>().deallocate(chunks_[c], Capacity(c));
    }
    std::vector<T*>().swap(chunks_);
    size_ = used_ = 0;
  }

 private:
  static constexpr size_t kFirst = 4, kLargest = 4096;
  static size_t Capacity(size_t chunk) { return chunk >= 10 ? kLargest : kFirst << chunk; }
  size_t Used(size_t chunk) const { return chunk + 1 == chunks_.size() ? used_ : Capacity(chunk); }

  std::vector<T*> chunks_;
  size_t size_ = 0;
  size_t used_ = 0;  // in the last chunk
};

}  // namespace kiln
