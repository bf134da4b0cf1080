// Shapes and broadcasting for kernels: numpy-style multidirectional broadcasting, strides, axis normalisation.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace kiln::kernels {

using Dims = std::vector<int64_t>;

inline int64_t NumElements(std::span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// Row-major strides in elements.
inline Dims Strides(std::span<const int64_t> dims) {
  Dims s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

// An axis in [-rank, rank) made non-negative; throws an invalid-argument error otherwise.
inline int64_t NormalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    throw sdk::Error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank),
                     KILN_STATUS_INVALID_ARGUMENT);
  return axis < 0 ? axis + rank : axis;
}

// The broadcast shape of several shapes (ONNX multidirectional broadcasting).
inline Dims BroadcastShape(std::span<const std::span<const int64_t>> shapes) {
  size_t rank = 0;
  for (auto s : shapes) rank = std::max(rank, s.size());
  Dims out(rank, 1);
  for (auto s : shapes) {
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& o = out[rank - s.size() + i];
      int64_t d = s[i];
      if (d == o || d == 1) continue;
      if (o == 1) o = d;
      else throw sdk::Error("shapes cannot be broadcast together", KILN_STATUS_INVALID_ARGUMENT);
    }
  }
  return out;
}

// For each output element (row-major over `out`), the element index in an input of shape `in` broadcast to it.
// Walks with an odometer, so the cost is one add per element.
class BroadcastIndex {
 public:
  BroadcastIndex(std::span<const int64_t> in, std::span<const int64_t> out) : out_(out.begin(), out.end()) {
    const size_t r = out.size();
    strides_.assign(r, 0);
    Dims in_strides = Strides(in);
    for (size_t i = 0; i < in.size(); ++i)
      strides_[r - in.size() + i] = in[i] == 1 ? 0 : in_strides[i];
    counter_.assign(r, 0);
  }
  int64_t index() const { return index_; }
  void Next() {
    for (size_t i = out_.size(); i-- > 0;) {
      index_ += strides_[i];
      if (++counter_[i] < out_[i]) return;
      index_ -= strides_[i] * counter_[i];
      counter_[i] = 0;
    }
  }

 private:
  Dims out_, strides_, counter_;
  int64_t index_ = 0;
};

}  // namespace kiln::kernels
