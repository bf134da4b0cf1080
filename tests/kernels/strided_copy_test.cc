// StridedCopy (sdk/include/kiln/kiln_strided_copy.hpp, used by the kernels through core/tensor_util.h), the copy
// behind Transpose, Slice and Expand: every path (contiguous rows, broadcast rows, strided rows, and the
// block-by-block transpose) against an element-by-element reference, on shapes that are not multiples of the block
// size, from aligned and misaligned sources; and StridedCopyRange, the same copy a range at a time (a lazily
// folded transpose), cut every way against the whole.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "core/tensor_util.h"

namespace {

using kiln::kernels::tx::StridedCopy;
using kiln::sdk::StridedCopyRange;
using Dims = std::vector<int64_t>;

// out[i0, i1, ...] = src[offset + sum(i_d * strides[d])], one element at a time.
std::vector<uint32_t> Reference(const std::vector<uint32_t>& src, int64_t offset, const Dims& dims,
                                const Dims& strides) {
  int64_t total = 1;
  for (int64_t d : dims) total *= d;
  std::vector<uint32_t> out;
  Dims index(dims.size(), 0);
  for (int64_t n = 0; n < total; ++n) {
    int64_t at = offset;
    for (size_t d = 0; d < dims.size(); ++d) at += index[d] * strides[d];
    out.push_back(src[static_cast<size_t>(at)]);
    for (size_t d = dims.size(); d-- > 0;) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

// The strides that read a dense tensor of shape `in` in the order `perm` (a transpose).
Dims PermutedStrides(const Dims& in, const Dims& perm, Dims& out_dims) {
  Dims dense(in.size(), 1);
  for (size_t i = in.size() - 1; i-- > 0;) dense[i] = dense[i + 1] * in[i + 1];
  Dims strides;
  out_dims.clear();
  for (int64_t p : perm) {
    out_dims.push_back(in[static_cast<size_t>(p)]);
    strides.push_back(dense[static_cast<size_t>(p)]);
  }
  return strides;
}

std::vector<uint32_t> Iota(int64_t n) {
  std::vector<uint32_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 7u);
  return v;
}

// A dense tensor of shape `in` (distinct elements) and the strided view that transposes it by `perm`.
struct Transposed {
  std::vector<uint32_t> src;
  Dims out_dims, strides;
};

Transposed Transpose(const Dims& in, const Dims& perm) {
  int64_t total = 1;
  for (int64_t d : in) total *= d;
  Transposed t;
  t.src = Iota(total);
  t.strides = PermutedStrides(in, perm, t.out_dims);
  return t;
}

// src's bytes one byte past an aligned address, as a weight can sit in a model file: the copy starts at data() + 1.
std::vector<std::byte> Misaligned(const std::vector<uint32_t>& src) {
  std::vector<std::byte> shifted(src.size() * sizeof(uint32_t) + 1);
  std::memcpy(shifted.data() + 1, src.data(), src.size() * sizeof(uint32_t));
  return shifted;
}

// The copy from src's own bytes, and from a copy of them one byte past an aligned address, as a weight can sit in a
// model file (Transpose takes such bytes as they are: KILN_KERNEL_ANY_ALIGNMENT).
void ExpectCopyMatches(const std::vector<uint32_t>& src, int64_t offset, const Dims& dims, const Dims& strides) {
  std::vector<uint32_t> expected = Reference(src, offset, dims, strides);
  std::vector<uint32_t> got(expected.size(), 0);
  StridedCopy(reinterpret_cast<const std::byte*>(src.data()), offset, dims, strides, got.data());
  EXPECT_EQ(got, expected);
  const std::vector<std::byte> shifted = Misaligned(src);
  std::vector<uint32_t> got_shifted(expected.size(), 0);
  StridedCopy(shifted.data() + 1, offset, dims, strides, got_shifted.data());
  EXPECT_EQ(got_shifted, expected) << "from a misaligned source";
}

TEST(StridedCopy, TransposesMatchTheReferenceAcrossBlockEdges) {
  const std::vector<std::pair<Dims, Dims>> cases = {
      {{33, 70}, {1, 0}},             // 2-D, neither side a multiple of the blocks
      {{16, 64}, {1, 0}},             // exact blocks (16 x 8)
      {{128, 192}, {1, 0}},           // exact 64 x 64 blocks of 4 x 4 shuffles
      {{130, 67}, {1, 0}},            // 64 x 64 blocks with 2 rows and 3 columns over, and rows not a multiple of 4
      {{3, 66, 5, 70}, {0, 3, 1, 2}}, // 4 x 4 shuffles inside outer dimensions, with a remainder each way
      {{1, 45}, {1, 0}},              // a unit dimension merges away: a plain copy
      {{5, 37, 40}, {2, 0, 1}},       // the contiguous source dimension is the last output's neighbour
      {{3, 40, 7, 35}, {0, 3, 1, 2}}, // NCHW -> NHWC-like, with outer dimensions
      {{6, 34, 3}, {1, 0, 2}},        // innermost stays contiguous: row copies
      {{2, 3, 4, 5}, {3, 2, 1, 0}},   // full reversal, small
  };
  for (const auto& [in, perm] : cases) {
    SCOPED_TRACE(::testing::PrintToString(in) + " perm " + ::testing::PrintToString(perm));
    const Transposed t = Transpose(in, perm);
    ExpectCopyMatches(t.src, 0, t.out_dims, t.strides);
  }
}

TEST(StridedCopy, SlicesAndBroadcastsMatchTheReference) {
  std::vector<uint32_t> src = Iota(40 * 50);
  // Every second column, read backwards from the last row (a Slice with steps -1 and 2).
  ExpectCopyMatches(src, 39 * 50, {40, 25}, {-50, 2});
  // Columns of a transposed slice: the source's contiguous dimension is the outer one.
  ExpectCopyMatches(src, 3, {40, 36}, {1, 50});
  // A row broadcast down (stride 0), and one element broadcast everywhere.
  ExpectCopyMatches(src, 5, {33, 50}, {0, 1});
  ExpectCopyMatches(src, 9, {4, 70}, {0, 0});
}

// Copied in pieces of every size from one element to the whole, and in ranges starting anywhere, each range
// equals the same elements of the whole copy: the cut into blocks of whole trailing dimensions loses and repeats
// nothing, at every dimension's edge.
TEST(StridedCopy, RangesOfACopyEqualTheWholeCopysElements) {
  const std::vector<std::pair<Dims, Dims>> cases = {
      {{33, 70}, {1, 0}},          {{130, 67}, {1, 0}}, {{3, 66, 5, 70}, {0, 3, 1, 2}},
      {{5, 37, 40}, {2, 0, 1}},    {{6, 34, 3}, {1, 0, 2}}, {{2, 3, 4, 5}, {3, 2, 1, 0}},
      {{1, 45}, {1, 0}},           {{7}, {0}},
  };
  for (const auto& [in, perm] : cases) {
    SCOPED_TRACE(::testing::PrintToString(in) + " perm " + ::testing::PrintToString(perm));
    const auto [src, out_dims, strides] = Transpose(in, perm);
    const int64_t total = static_cast<int64_t>(src.size());
    const std::vector<uint32_t> whole = Reference(src, 0, out_dims, strides);
    const std::vector<std::byte> shifted = Misaligned(src);
    for (int64_t piece : {int64_t{1}, int64_t{7}, int64_t{64}, int64_t{1000}, total}) {
      std::vector<uint32_t> got(whole.size(), 0);
      for (int64_t at = 0; at < total; at += piece)
        StridedCopyRange(shifted.data() + 1, 0, out_dims, strides, at, std::min(piece, total - at),
                         got.data() + at);
      EXPECT_EQ(got, whole) << "in pieces of " << piece;
    }
    for (int64_t first = 0; first < total; first += 1 + total / 13) {
      for (int64_t count : {int64_t{1}, total / 3 + 1, total - first}) {
        count = std::min(count, total - first);
        std::vector<uint32_t> got(static_cast<size_t>(count), 0);
        StridedCopyRange(reinterpret_cast<const std::byte*>(src.data()), 0, out_dims, strides, first, count,
                         got.data());
        EXPECT_TRUE(std::equal(got.begin(), got.end(), whole.begin() + first)) << first << " + " << count;
      }
    }
  }
}

}  // namespace
