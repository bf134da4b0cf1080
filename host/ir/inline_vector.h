// A vector of trivially copyable elements that holds its first N in place, for the IR's short per-object lists: a
// node's outputs and inputs (most nodes have one output and one or two inputs). They took two std::vectors, each
// with a heap block of 16 bytes or more beside the vector's 24; this is N elements and two 32-bit counts, and grows
// onto the heap by doubling past N. Erasing keeps the order of the rest, as std::vector::erase does. (A value's
// readers have a list of their own, UseList, that keeps its count in a use's padding.)
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>

namespace kiln {

template <typename T, uint32_t N>
class InlineVector {
  static_assert(std::is_trivially_copyable_v<T> && N >= 1);

 public:
  InlineVector() : in_place_{} {}
  InlineVector(const InlineVector&) = delete;
  InlineVector& operator=(const InlineVector&) = delete;
  ~InlineVector() {
    if (on_heap()) delete[] heap_;
  }

  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  operator std::span<T const>() const { return {data(), size_}; }

  void push_back(T v) {
    if (size_ == capacity_) Grow(capacity_ * 2);
    data()[size_++] = v;
  }
  // Inserts `v` before element `at` (at most size()), moving the later ones up.
  void insert(size_t at, T v) {
    push_back(v);
    std::rotate(data() + at, data() + size_ - 1, data() + size_);
  }
  // Removes the element at `at` (one of this vector's), moving the later ones down.
  void erase(const T* at) {
    T* d = data();
    const size_t i = static_cast<size_t>(at - d);
    std::copy(d + i + 1, d + size_, d + i);
    --size_;
  }
  // Grows to `n` elements, the new ones `fill`, or drops the last ones down to `n`.
  void resize(size_t n, T fill = T{}) {
    if (n > capacity_) Grow(static_cast<uint32_t>(std::max<size_t>(n, size_t{capacity_} * 2)));
    if (n > size_) std::fill(data() + size_, data() + n, fill);
    size_ = static_cast<uint32_t>(n);
  }

 private:
  bool on_heap() const { return capacity_ > N; }
  T* data() { return on_heap() ? heap_ : in_place_; }
  const T* data() const { return on_heap() ? heap_ : in_place_; }
  void Grow(uint32_t capacity) {
    auto grown = std::make_unique<T[]>(capacity);
    std::copy(begin(), end(), grown.get());
    if (on_heap()) delete[] heap_;
    heap_ = grown.release();
    capacity_ = capacity;
  }

  union {
    T in_place_[N];  // capacity_ == N
    T* heap_;        // capacity_ > N
  };
  uint32_t size_ = 0;
  uint32_t capacity_ = N;
};

// The size the IR's lists were chosen for: a node's outputs and inputs in one, 8 bytes more than an std::vector.
static_assert(sizeof(InlineVector<void*, 3>) == 32);

}  // namespace kiln
