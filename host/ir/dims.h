// A tensor's dims in 16 bytes: a single dim in place (a bias, a scale: most of a model's small weights are 1-D), more
// in a heap block of exactly their count. An std::vector took 24 bytes and a heap block for any dim; with Dims and
// its rare parts behind one pointer, a Tensor is 48 bytes, 64 with its shared_ptr's control block (was 80, and 16
// more for the dims' block). Fixed once made. Reads as a span of int64_t, converts to std::vector<int64_t>, and
// compares with Dims and vectors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iosfwd>
#include <span>
#include <vector>

namespace kiln {

class Dims {
 public:
  Dims() noexcept { one_ = 0; }
  Dims(std::span<const int64_t> d) { Assign(d); }  // NOLINT: a vector's dims convert
  Dims(const std::vector<int64_t>& d) : Dims(std::span<const int64_t>(d)) {}  // NOLINT
  Dims(std::initializer_list<int64_t> d) : Dims(std::span<const int64_t>(d.begin(), d.size())) {}
  Dims(const Dims& o) : Dims(o.span()) {}
  Dims(Dims&& o) noexcept : size_(o.size_) {
    std::memcpy(&one_, &o.one_, sizeof one_);  // the dim or the heap pointer, whichever it holds
    o.size_ = 0;
  }
  Dims& operator=(const Dims& o) {
    if (this != &o) *this = Dims(o);
    return *this;
  }
  Dims& operator=(Dims&& o) noexcept {
    if (this != &o) {
      Free();
      size_ = o.size_;
      std::memcpy(&one_, &o.one_, sizeof one_);
      o.size_ = 0;
    }
    return *this;
  }
  ~Dims() { Free(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const int64_t* data() const { return size_ > 1 ? heap_ : &one_; }
  const int64_t* begin() const { return data(); }
  const int64_t* end() const { return data() + size_; }
  int64_t operator[](size_t i) const { return data()[i]; }
  int64_t front() const { return data()[0]; }
  int64_t back() const { return data()[size_ - 1]; }
  std::span<const int64_t> span() const { return {data(), size_}; }
  operator std::span<const int64_t>() const { return span(); }  // NOLINT
  operator std::vector<int64_t>() const { return vec(); }  // NOLINT
  std::vector<int64_t> vec() const { return {begin(), end()}; }

  friend bool operator==(const Dims& a, const Dims& b) { return Equal(a.span(), b.span()); }
  friend bool operator==(const Dims& a, const std::vector<int64_t>& b) { return Equal(a.span(), b); }
  friend std::ostream& operator<<(std::ostream& os, const Dims& d);

 private:
  static bool Equal(std::span<const int64_t> a, std::span<const int64_t> b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(int64_t)) == 0);
  }
  void Assign(std::span<const int64_t> d) {
    size_ = d.size();
    if (size_ <= 1) {
      one_ = size_ == 1 ? d[0] : 0;
      return;
    }
    heap_ = new int64_t[size_];
    std::memcpy(heap_, d.data(), size_ * sizeof(int64_t));
  }
  void Free() {
    if (size_ > 1) delete[] heap_;
  }

  union {
    int64_t one_;    // size_ <= 1
    int64_t* heap_;  // size_ > 1
  };
  size_t size_ = 0;
};

}  // namespace kiln
