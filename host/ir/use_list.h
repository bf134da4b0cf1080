// A value's readers: its uses (node, input slot), in the order they were added, in 16 bytes. Most values have one
// reader (every value of an exported chain does): it is kept in place, and the list's count in the 4 bytes a Use
// pads to. More go to a heap block, growing by doubling; its pointer and capacity take the in-place use's fields.
// InlineVector<Use, 1> took 24 bytes: with it a Value was 96 bytes, with this 80, an allocator size class down
// (the 1M-node chain holds 1.67M values). Erasing keeps the order of the rest, as std::vector::erase does.
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
  // Not part of the use: where a UseList holds the use in place, it keeps its own count here. Equality ignores it.
  uint32_t list_word = 0;
  bool operator==(const Use& o) const { return node == o.node && slot == o.slot; }
};

class UseList {
 public:
  UseList() : one_{nullptr, 0, 0} {}
  UseList(const UseList&) = delete;
  UseList& operator=(const UseList&) = delete;
  ~UseList() {
    if (on_heap()) delete[] heap();
  }

  const Use* begin() const { return data(); }
  const Use* end() const { return data() + size(); }
  size_t size() const { return one_.list_word & ~kOnHeap; }
  bool empty() const { return size() == 0; }
  operator std::span<const Use>() const { return {data(), size()}; }  // NOLINT: reads as a list of uses

  void push_back(Node* node, uint32_t slot) {
    const uint32_t n = static_cast<uint32_t>(size());
    if (n == 0 && !on_heap()) {
      one_ = Use{node, slot, 1};
      return;
    }
    if (!on_heap() || n == one_.slot) Grow(n * 2);  // in place, n is 1
    heap()[n] = Use{node, slot};
    one_.list_word = (n + 1) | kOnHeap;
  }
  // Removes the element at `at` (one of this list's), moving the later ones down. The heap block is kept.
  void erase(const Use* at) {
    if (!on_heap()) {
      one_ = Use{nullptr, 0, 0};
      return;
    }
    Use* d = heap();
    const size_t i = static_cast<size_t>(at - d);
    const size_t n = size();
    std::copy(d + i + 1, d + n, d + i);
    one_.list_word = static_cast<uint32_t>(n - 1) | kOnHeap;
  }

 private:
  static constexpr uint32_t kOnHeap = 0x80000000u;
  bool on_heap() const { return (one_.list_word & kOnHeap) != 0; }
  // On the heap, the in-place use's node field holds the block (a round trip through another object pointer type
  // of no stricter alignment) and its slot field the block's capacity.
  Use* heap() const { return reinterpret_cast<Use*>(one_.node); }
  const Use* data() const { return on_heap() ? heap() : &one_; }
  void Grow(uint32_t capacity) {
    auto grown = std::make_unique<Use[]>(capacity);
    std::copy(begin(), end(), grown.get());
    const uint32_t n = static_cast<uint32_t>(size());
    if (on_heap()) delete[] heap();
    one_ = Use{reinterpret_cast<Node*>(grown.release()), capacity, n | kOnHeap};
  }

  Use one_;
};

static_assert(sizeof(Use) == 16 && sizeof(UseList) == 16);

}  // namespace kiln
