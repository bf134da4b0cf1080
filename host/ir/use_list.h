// The readers of a value, in the order they were added, with the first one held in place: most values have one
// reader (every value of an exported chain does), and an std::vector<Use> took a heap block of its own for it
// (16 bytes and the vector's 24 beside the value; the 1M-node chain's 1.67M values held 27 MB of such blocks).
// Erasing keeps the order of the rest, as std::vector::erase does: passes and the writer walk readers in it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace kiln {

class Node;

struct Use {
  Node* node;
  uint32_t slot;  // input index on `node`
  bool operator==(const Use&) const = default;
};

class UseList {
 public:
  UseList() : one_{} {}
  UseList(const UseList&) = delete;
  UseList& operator=(const UseList&) = delete;
  ~UseList() {
    if (on_heap()) delete[] heap_;
  }

  const Use* begin() const { return data(); }
  const Use* end() const { return data() + size_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::span<const Use> span() const { return {data(), size_}; }

  void push_back(Use u) {
    if (size_ == capacity_) Grow();
    data()[size_++] = u;
  }
  // Removes the entry at `at` (one of this list's), moving the later ones down.
  void erase(const Use* at) {
    Use* d = data();
    const size_t i = static_cast<size_t>(at - d);
    std::copy(d + i + 1, d + size_, d + i);
    --size_;
  }

 private:
  bool on_heap() const { return capacity_ > 1; }
  Use* data() { return on_heap() ? heap_ : &one_; }
  const Use* data() const { return on_heap() ? heap_ : &one_; }
  void Grow() {
    const uint32_t capacity = capacity_ * 2;
    auto grown = std::make_unique<Use[]>(capacity);
    std::copy(begin(), end(), grown.get());
    if (on_heap()) delete[] heap_;
    heap_ = grown.release();
    capacity_ = capacity;
  }

  union {
    Use one_;    // capacity_ == 1
    Use* heap_;  // capacity_ > 1
  };
  uint32_t size_ = 0;
  uint32_t capacity_ = 1;
};

}  // namespace kiln
