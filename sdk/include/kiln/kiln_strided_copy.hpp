// Copies of strided views of a tensor's elements into dense row-major memory: what Transpose, Slice, Expand and
// Tile kernels do, and what a pass that makes a transposed weight lazily (a computed constant, ABI 1.10) does a
// range at a time. Header-only templates over the raw element type U (an unsigned integer of the element's size, or
// any trivially copyable type of it); the source may sit at any address: its elements are copied out with memcpy,
// so a kernel built on these may take KILN_KERNEL_ANY_ALIGNMENT. Part of the SDK; needs no host.
//
//   StridedCopy<uint32_t>(src, 0, out_dims, strides, dst);                 // the whole view
//   StridedCopyRange<uint32_t>(src, 0, out_dims, strides, first, n, dst);  // its row-major elements [first, first+n)
//   auto view = TransposeView(dims, perm);                                  // a Transpose's out_dims and strides
#ifndef KILN_STRIDED_COPY_HPP_
#define KILN_STRIDED_COPY_HPP_

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

namespace kiln::sdk {

// Element i of src, which may sit at any address: copied out, which compilers turn into one load.
template <typename U>
U LoadAt(const std::byte* src, int64_t i) {
  U v;
  std::memcpy(&v, src + i * static_cast<int64_t>(sizeof(U)), sizeof(U));
  return v;
}

namespace detail {

// Four rows of four 4-byte elements, read at `src` (any address; row j at src + j * stride bytes), written
// transposed at `dst` (row i at dst + i * dst_stride elements): dst[i][j] = src[j][i]. Eight shuffles of whole
// vectors (GCC and Clang vector extensions) in place of sixteen element loads and stores.
template <typename U>
void Transpose4x4(const std::byte* src, int64_t stride, U* dst, int64_t dst_stride) {
  static_assert(sizeof(U) == 4);
  using V = uint32_t __attribute__((vector_size(16)));
  auto load = [](const std::byte* p) {
    V v;
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  auto store = [](U* p, V v) { std::memcpy(p, &v, sizeof v); };
  const V v0 = load(src), v1 = load(src + stride), v2 = load(src + 2 * stride), v3 = load(src + 3 * stride);
  const V t0 = __builtin_shufflevector(v0, v1, 0, 4, 1, 5), t1 = __builtin_shufflevector(v0, v1, 2, 6, 3, 7);
  const V t2 = __builtin_shufflevector(v2, v3, 0, 4, 1, 5), t3 = __builtin_shufflevector(v2, v3, 2, 6, 3, 7);
  store(dst, __builtin_shufflevector(t0, t2, 0, 1, 4, 5));
  store(dst + dst_stride, __builtin_shufflevector(t0, t2, 2, 3, 6, 7));
  store(dst + 2 * dst_stride, __builtin_shufflevector(t1, t3, 0, 1, 4, 5));
  store(dst + 3 * dst_stride, __builtin_shufflevector(t1, t3, 2, 3, 6, 7));
}

// StridedCopy's transpose case: the innermost output dimension walks the source with a stride while dimension k
// is contiguous there. Copied row by row, every element read is a new cache line (a 4096 x 4096 float weight:
// 16M lines for 64 MB); copied in blocks of the (k, innermost) plane, each source line serves several rows while
// the block's lines stay in cache. 4-byte elements go 4 x 4 at a time through vector shuffles (Transpose4x4) in
// 64 x 64 blocks; other sizes one element at a time in 16 x 8 blocks (small, because strides of a power of two
// times a few hundred bytes map a large block's lines onto few cache sets when each element is its own load).
// bench/kernels/strided_copy_bench.cc, floats one byte off alignment, medians of 5 on the development VM, the
// element-by-element 16 x 8 blocks before and these after (two interleaved rounds): 4096 x 4096 64 and 55 ms ->
// 39 and 38 ms; 4096 x 11008 199 and 166 -> 87 and 83 ms; 768 x 3072 9.2 and 7.2 -> 3.9 and 4.4 ms (memcpy of the
// same bytes: 12, 30, 1.1 ms).
template <typename U>
void TiledCopy(const std::byte* src, int64_t offset, const std::vector<int64_t>& dims,
               const std::vector<int64_t>& strides, size_t k, U* dst) {
  constexpr bool kShuffled = sizeof(U) == 4;
  constexpr int64_t kRows = kShuffled ? 64 : 16, kCols = kShuffled ? 64 : 8;
  const size_t r = dims.size();
  std::vector<int64_t> dst_strides(r, 1);
  for (size_t i = r - 1; i-- > 0;) dst_strides[i] = dst_strides[i + 1] * dims[i + 1];
  const int64_t rows = dims[k], row_step = dst_strides[k], cols = dims[r - 1], step = strides[r - 1];
  auto plane = [&](int64_t from, U* to) {
    for (int64_t a0 = 0; a0 < rows; a0 += kRows) {
      const int64_t a1 = std::min(a0 + kRows, rows);
      for (int64_t b0 = 0; b0 < cols; b0 += kCols) {
        const int64_t b1 = std::min(b0 + kCols, cols);
        int64_t a = a0;
        if constexpr (kShuffled) {
          for (; a + 4 <= a1; a += 4) {
            int64_t b = b0;
            for (; b + 4 <= b1; b += 4)
              Transpose4x4(src + (from + a + b * step) * 4, step * 4, to + a * row_step + b, row_step);
            for (int64_t i = a; i < a + 4; ++i)
              for (int64_t j = b; j < b1; ++j) to[i * row_step + j] = LoadAt<U>(src, from + i + j * step);
          }
        }
        for (; a < a1; ++a) {
          U* d = to + a * row_step;
          for (int64_t b = b0; b < b1; ++b) d[b] = LoadAt<U>(src, from + a + b * step);
        }
      }
    }
  };
  // The other dimensions, outermost first, walked like an odometer.
  std::vector<size_t> outer;
  for (size_t i = 0; i + 1 < r; ++i)
    if (i != k) outer.push_back(i);
  std::vector<int64_t> counter(outer.size(), 0);
  int64_t src_at = offset, dst_at = 0;
  for (bool more = true; more;) {
    plane(src_at, dst + dst_at);
    more = false;
    for (size_t i = outer.size(); i-- > 0 && !more;) {
      const size_t dim = outer[i];
      src_at += strides[dim];
      dst_at += dst_strides[dim];
      if (++counter[i] < dims[dim]) {
        more = true;
      } else {
        src_at -= strides[dim] * dims[dim];
        dst_at -= dst_strides[dim] * dims[dim];
        counter[i] = 0;
      }
    }
  }
}

}  // namespace detail

// Copies a strided view of src (element offset `offset`, per-dimension strides, possibly negative or zero) into
// the dense row-major dst of shape dims. The innermost dimension runs as a tight loop, or, when it is strided in
// the source and another dimension is contiguous there (a transpose), the copy goes block by block. src may sit at
// any address (its elements are copied out: LoadAt), so a kernel built on this may take KILN_KERNEL_ANY_ALIGNMENT.
template <typename U>
void StridedCopy(const std::byte* src, int64_t offset, std::span<const int64_t> in_dims,
                 std::span<const int64_t> in_strides, U* dst) {
  int64_t total = 1;
  for (int64_t d : in_dims) total *= d;
  if (total == 0) return;
  // Drop unit dims and merge neighbours that are contiguous in the source.
  std::vector<int64_t> dims, strides;
  for (size_t i = 0; i < in_dims.size(); ++i) {
    if (in_dims[i] == 1) continue;
    if (!dims.empty() && strides.back() == in_strides[i] * in_dims[i]) {
      dims.back() *= in_dims[i];
      strides.back() = in_strides[i];
    } else {
      dims.push_back(in_dims[i]);
      strides.push_back(in_strides[i]);
    }
  }
  const size_t r = dims.size();
  if (r == 0) {
    dst[0] = LoadAt<U>(src, offset);
    return;
  }
  const int64_t inner = dims[r - 1], step = strides[r - 1];
  if (step > 1 && inner > 1) {
    for (size_t k = r - 1; k-- > 0;)
      if (strides[k] == 1 && dims[k] > 1) return detail::TiledCopy(src, offset, dims, strides, k, dst);
  }
  std::vector<int64_t> counter(r, 0);
  int64_t off = offset;
  for (int64_t done = 0; done < total; done += inner) {
    if (step == 1)
      std::memcpy(dst, src + off * static_cast<int64_t>(sizeof(U)), static_cast<size_t>(inner) * sizeof(U));
    else if (step == 0)
      std::fill(dst, dst + inner, LoadAt<U>(src, off));
    else
      for (int64_t j = 0; j < inner; ++j) dst[j] = LoadAt<U>(src, off + j * step);
    dst += inner;
    for (size_t i = r - 1; i-- > 0;) {
      off += strides[i];
      if (++counter[i] < dims[i]) break;
      off -= strides[i] * dims[i];
      counter[i] = 0;
    }
  }
}

// Copies the row-major elements [first, first + count) of the strided view StridedCopy copies whole into dst (count
// elements): the range is cut into the largest blocks of whole trailing dimensions it holds (at most two per
// dimension), each copied as a view of its own, so a range of a transpose is copied block by block as the whole is.
template <typename U>
void StridedCopyRange(const std::byte* src, int64_t offset, std::span<const int64_t> dims,
                      std::span<const int64_t> strides, int64_t first, int64_t count, U* dst) {
  const size_t r = dims.size();
  if (count <= 0) return;
  if (r == 0) {
    dst[0] = LoadAt<U>(src, offset);
    return;
  }
  // block[k]: the elements one step of dimension k spans in the output (the product of the dimensions after it).
  std::vector<int64_t> block(r, 1);
  for (size_t k = r - 1; k-- > 0;) block[k] = block[k + 1] * dims[k + 1];
  const int64_t total = block[0] * dims[0];
  std::vector<int64_t> sub_dims, sub_strides;
  for (int64_t at = first, end = first + count; at < end;) {
    // The outermost dimension k whose whole steps start at `at` and fit before `end`; then as many of its steps
    // as fit before `end` without crossing into the next step of dimension k - 1.
    size_t k = 0;
    while (at % block[k] != 0 || at + block[k] > end) ++k;
    const int64_t limit = k == 0 ? total : (at / block[k - 1] + 1) * block[k - 1];
    const int64_t steps = (std::min(end, limit) - at) / block[k];
    int64_t from = offset, rest = at;
    for (size_t i = 0; i < r; ++i) {
      from += rest / block[i] * strides[i];
      rest %= block[i];
    }
    sub_dims.assign(dims.begin() + static_cast<std::ptrdiff_t>(k), dims.end());
    sub_strides.assign(strides.begin() + static_cast<std::ptrdiff_t>(k), strides.end());
    sub_dims[0] = steps;
    StridedCopy<U>(src, from, sub_dims, sub_strides, dst + (at - first));
    at += steps * block[k];
  }
}

// StridedCopyRange for elements of `elem_size` bytes (1, 2, 4, 8 or 16), dispatched here on that size alone: a
// copy only moves elements, so any element type of that size takes the same path.
inline void StridedCopyRangeBytes(size_t elem_size, const std::byte* src, int64_t offset,
                                  std::span<const int64_t> dims, std::span<const int64_t> strides, int64_t first,
                                  int64_t count, std::byte* dst) {
  auto copy = [&]<typename U>() {
    StridedCopyRange<U>(src, offset, dims, strides, first, count, reinterpret_cast<U*>(dst));
  };
  switch (elem_size) {
    case 1: return copy.operator()<uint8_t>();
    case 2: return copy.operator()<uint16_t>();
    case 4: return copy.operator()<uint32_t>();
    case 8: return copy.operator()<uint64_t>();
    default: return copy.operator()<std::array<uint64_t, 2>>();
  }
}

// The strided view a Transpose reads of a dense row-major tensor of shape `dims`: the output's dims and, for each,
// the stride (in elements) that walks the input. `perm` as ONNX gives it: empty reverses the dimensions, a negative
// axis counts from the end. nullopt when perm is not a permutation of the dimensions.
struct StridedView {
  std::vector<int64_t> dims, strides;
};

inline std::optional<StridedView> TransposeView(std::span<const int64_t> dims, std::span<const int64_t> perm) {
  const size_t rank = dims.size();
  if (!perm.empty() && perm.size() != rank) return std::nullopt;
  std::vector<int64_t> dense(rank, 1);
  for (size_t i = rank; i-- > 1;) dense[i - 1] = dense[i] * dims[i];
  StridedView view{std::vector<int64_t>(rank), std::vector<int64_t>(rank)};
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < rank; ++i) {
    int64_t p = perm.empty() ? static_cast<int64_t>(rank - 1 - i) : perm[i];
    if (p < 0) p += static_cast<int64_t>(rank);
    if (p < 0 || p >= static_cast<int64_t>(rank) || seen[static_cast<size_t>(p)]) return std::nullopt;
    seen[static_cast<size_t>(p)] = true;
    view.dims[i] = dims[static_cast<size_t>(p)];
    view.strides[i] = dense[static_cast<size_t>(p)];
  }
  return view;
}

}  // namespace kiln::sdk

#endif  // KILN_STRIDED_COPY_HPP_
