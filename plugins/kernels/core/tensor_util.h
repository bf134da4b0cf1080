// Helpers for the data-movement kernels (tensor/, index/, sequence/): element-size dispatch that treats every
// fixed-size element type as raw bits (so one instantiation serves float, int32 and uint32 alike) and strings
// as KilnString views, an output writer that stages strings and commits them with SetString, and readers for
// the integer inputs and attributes (shapes, axes, indices) these ops take.
//
//   DispatchRaw(t.ElemType(), [&]<typename U>() {
//     const U* in = RawIn<U>(t);
//     RawOut<U> out(ctx.AllocOutput(0, t.ElemType(), dims));
//     ... out.data()[j] = in[i]; ...
//     out.Commit();
//   });
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <kiln/kiln_plugin.hpp>
#include <span>
#include <string>
#include <vector>

#include "core/shape_util.h"
#include <kiln/kiln_strided_copy.hpp>

// Everything sits in kiln::kernels::tx so that other families' helpers of the same name cannot clash (ODR).
namespace kiln::kernels::tx {

// The kernels of tensor/, index/, sequence/, text/ and random/ keep no state: the host may run them on several
// threads at once.
inline constexpr uint32_t kThreadSafe = KILN_KERNEL_THREAD_SAFE;
// A kernel whose only tensor input is read through LoadAt (StridedCopy): the host may hand it a weight where the
// model file keeps it, misaligned, instead of copying it to be aligned (ABI 1.8).
inline constexpr uint32_t kAnyAlignment = KILN_KERNEL_ANY_ALIGNMENT;

// The SDK's copies of strided views (kiln_strided_copy.hpp), shared with the folding passes.
using sdk::LoadAt;
using sdk::StridedCopy;

// Sixteen raw bytes (complex128).
struct Bytes16 {
  uint64_t lo, hi;
};

// Calls fn.template operator()<U>() with U the raw type of `elem`: an unsigned integer of its size, Bytes16, or
// KilnString for strings. Throws Unsupported for element types without a size (UNDEFINED).
template <typename Fn>
decltype(auto) DispatchRaw(int32_t elem, Fn&& fn) {
  if (elem == KILN_ELEM_STRING) return fn.template operator()<KilnString>();
  switch (kiln_elem_type_size(elem)) {
    case 1:
      return fn.template operator()<uint8_t>();
    case 2:
      return fn.template operator()<uint16_t>();
    case 4:
      return fn.template operator()<uint32_t>();
    case 8:
      return fn.template operator()<uint64_t>();
    case 16:
      return fn.template operator()<Bytes16>();
    default:
      throw sdk::Unsupported("element type " + std::to_string(elem) + " has no fixed size");
  }
}

template <typename U>
const U* RawIn(const sdk::TensorView& t) {
  return static_cast<const U*>(t.Data());
}

// The input's bytes, for the readers that take any address (StridedCopy).
inline const std::byte* RawBytesIn(const sdk::TensorView& t) { return static_cast<const std::byte*>(t.Data()); }

// Typed element pointers for a type already dispatched on (works for half/bfloat16, which the SDK's
// Values<T> does not know).
template <typename T>
const T* TypedIn(const sdk::TensorView& t) {
  return static_cast<const T*>(t.Data());
}
template <typename T>
T* TypedOut(const sdk::MutableTensor& t) {
  return static_cast<T*>(t.MutableData());
}

// The elements of an output as raw U. For strings, data() is a staging array of views (into input tensors or
// strings the caller keeps alive) that Commit() copies into the output; for other types data() is the output.
template <typename U>
class RawOut {
 public:
  explicit RawOut(sdk::MutableTensor t) : t_(t) {
    if constexpr (std::is_same_v<U, KilnString>) staged_.assign(static_cast<size_t>(t.ElementCount()), {"", 0});
  }
  U* data() {
    if constexpr (std::is_same_v<U, KilnString>)
      return staged_.data();
    else
      return static_cast<U*>(t_.MutableData());
  }
  void Commit() {
    if constexpr (std::is_same_v<U, KilnString>)
      for (size_t i = 0; i < staged_.size(); ++i)
        t_.SetString(i, std::string_view(staged_[i].data, static_cast<size_t>(staged_[i].size)));
  }
  const sdk::MutableTensor& tensor() const { return t_; }

 private:
  sdk::MutableTensor t_;
  std::vector<KilnString> staged_;
};

// Copies a whole tensor into a freshly allocated output of the same type and the given dims (same count).
inline void CopyTensorTo(const sdk::TensorView& in, const sdk::MutableTensor& out) {
  if (in.ElemType() == KILN_ELEM_STRING) {
    const int64_t n = in.ElementCount();
    for (int64_t i = 0; i < n; ++i) out.SetString(static_cast<size_t>(i), in.StringAt(static_cast<size_t>(i)));
  } else if (in.ByteSize() > 0) {
    std::memcpy(out.MutableData(), in.Data(), static_cast<size_t>(in.ByteSize()));
  }
}

// Identity with new dims: allocates output `index` and copies input `in` into it.
inline void EmitReshaped(sdk::KernelContext& ctx, size_t index, const sdk::TensorView& in,
                         std::span<const int64_t> dims) {
  if (NumElements(dims) != in.ElementCount())
    throw sdk::Error("cannot give a tensor of " + std::to_string(in.ElementCount()) + " elements the shape of " +
                         std::to_string(NumElements(dims)),
                     KILN_STATUS_INVALID_ARGUMENT);
  CopyTensorTo(in, ctx.AllocOutput(index, in.ElemType(), dims));
}

// The values of an integer tensor (int32 or int64; also the other integer types) as int64.
inline std::vector<int64_t> ReadInts(const sdk::TensorView& t, std::string_view what) {
  const int64_t n = t.ElementCount();
  std::vector<int64_t> out(static_cast<size_t>(n));
  auto copy = [&](const auto* p) {
    for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = static_cast<int64_t>(p[i]);
  };
  switch (t.ElemType()) {
    case KILN_ELEM_INT64:
      copy(static_cast<const int64_t*>(t.Data()));
      break;
    case KILN_ELEM_INT32:
      copy(static_cast<const int32_t*>(t.Data()));
      break;
    case KILN_ELEM_INT16:
      copy(static_cast<const int16_t*>(t.Data()));
      break;
    case KILN_ELEM_INT8:
      copy(static_cast<const int8_t*>(t.Data()));
      break;
    case KILN_ELEM_UINT8:
      copy(static_cast<const uint8_t*>(t.Data()));
      break;
    case KILN_ELEM_UINT16:
      copy(static_cast<const uint16_t*>(t.Data()));
      break;
    case KILN_ELEM_UINT32:
      copy(static_cast<const uint32_t*>(t.Data()));
      break;
    case KILN_ELEM_UINT64:
      copy(static_cast<const uint64_t*>(t.Data()));
      break;
    default:
      throw sdk::Error(
          std::string(what) + " must be an integer tensor, got element type " + std::to_string(t.ElemType()),
          KILN_STATUS_INVALID_ARGUMENT);
  }
  return out;
}

// A scalar (or one-element) integer input.
inline int64_t ReadScalarInt(const sdk::TensorView& t, std::string_view what) {
  std::vector<int64_t> v = ReadInts(t, what);
  if (v.size() != 1)
    throw sdk::Error(std::string(what) + " must hold one value, got " + std::to_string(v.size()),
                     KILN_STATUS_INVALID_ARGUMENT);
  return v[0];
}

// An index in [-n, n) made non-negative; throws naming `what` otherwise.
inline int64_t NormalizeIndex(int64_t idx, int64_t n, std::string_view what) {
  if (idx < -n || idx >= n)
    throw sdk::Error(std::string(what) + " " + std::to_string(idx) + " is out of range [" + std::to_string(-n) + ", " +
                         std::to_string(n) + ")",
                     KILN_STATUS_INVALID_ARGUMENT);
  return idx < 0 ? idx + n : idx;
}

// Axes normalised against `rank`, rejecting duplicates.
inline std::vector<int64_t> NormalizeAxes(std::span<const int64_t> axes, int64_t rank) {
  std::vector<int64_t> out;
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    int64_t n = NormalizeAxis(a, rank);
    if (seen[static_cast<size_t>(n)])
      throw sdk::Error("axis " + std::to_string(a) + " is repeated", KILN_STATUS_INVALID_ARGUMENT);
    seen[static_cast<size_t>(n)] = true;
    out.push_back(n);
  }
  return out;
}

// outer x axis x inner view of a shape around one axis.
struct AxisSplit {
  int64_t outer = 1, axis = 1, inner = 1;
};
inline AxisSplit SplitAt(std::span<const int64_t> dims, int64_t axis) {
  AxisSplit s;
  for (int64_t i = 0; i < static_cast<int64_t>(dims.size()); ++i) {
    if (i < axis)
      s.outer *= dims[static_cast<size_t>(i)];
    else if (i == axis)
      s.axis = dims[static_cast<size_t>(i)];
    else
      s.inner *= dims[static_cast<size_t>(i)];
  }
  return s;
}

inline sdk::Error InvalidArg(const std::string& message) { return sdk::Error(message, KILN_STATUS_INVALID_ARGUMENT); }

// Fills the dense dst of shape out_dims from src of shape in_dims through one index map per axis: output
// coordinate o on axis a reads input coordinate maps[a][o], or `fill` where that is -1 (Pad, Tile, Expand).
template <typename U>
void AxisMapCopy(const U* src, std::span<const int64_t> in_dims, std::span<const int64_t> out_dims,
                 const std::vector<std::vector<int64_t>>& maps, const U& fill, U* dst) {
  const size_t r = out_dims.size();
  const int64_t total = NumElements(out_dims);
  if (total == 0) return;
  if (r == 0) {
    dst[0] = src[0];
    return;
  }
  const Dims in_strides = Strides(in_dims);
  const int64_t inner = out_dims[r - 1];
  const int64_t* last = maps[r - 1].data();
  std::vector<int64_t> counter(r, 0);
  for (int64_t done = 0; done < total; done += inner) {
    int64_t base = 0;
    bool filled = false;
    for (size_t i = 0; i + 1 < r; ++i) {
      int64_t m = maps[i][static_cast<size_t>(counter[i])];
      if (m < 0) {
        filled = true;
        break;
      }
      base += m * in_strides[i];
    }
    if (filled) {
      std::fill(dst, dst + inner, fill);
    } else {
      const U* s = src + base;
      for (int64_t j = 0; j < inner; ++j) dst[j] = last[j] < 0 ? fill : s[last[j]];
    }
    dst += inner;
    for (size_t i = r - 1; i-- > 0;) {
      if (++counter[i] < out_dims[i]) break;
      counter[i] = 0;
    }
  }
}

// Makes output `index` a sequence holding copies of `items` (all of elem_type).
inline void EmitSequence(sdk::KernelContext& ctx, size_t index, int32_t elem_type,
                         std::span<const sdk::TensorView> items) {
  ctx.AllocOutputSequence(index, elem_type, items.size());
  for (size_t j = 0; j < items.size(); ++j) {
    if (items[j].ElemType() != elem_type)
      throw InvalidArg("sequence element " + std::to_string(j) + " has element type " +
                       std::to_string(items[j].ElemType()) + ", the sequence holds " + std::to_string(elem_type));
    CopyTensorTo(items[j], ctx.AllocSequenceElement(index, j, items[j].Dims()));
  }
}

}  // namespace kiln::kernels::tx
