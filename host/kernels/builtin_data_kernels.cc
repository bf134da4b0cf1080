// Built-in kernels that move elements: Concat, Split, Slice, Gather, Transpose, Expand, Where, Cast. They copy
// bytes by element size, so every fixed-width element type works; strings are left to plugin kernels.
#include <cstring>

#include "kernels/builtin_util.h"

namespace kiln::builtin {
namespace {

bool Fixed(const Tensor& t) { return ElementSize(t.type()) != 0; }

KernelResult Concat(KernelCall& c) {
  std::vector<const Tensor*> ins;
  for (size_t i = 0; i < c.num_inputs(); ++i)
    if (c.has_input(i)) ins.push_back(&c.tensor(i));
  if (ins.empty() || !Fixed(*ins[0])) return KernelResult::kUnsupported;
  const int64_t r = static_cast<int64_t>(ins[0]->dims().size());
  const size_t axis = static_cast<size_t>(Axis(c.node().GetInt("axis", 0), r, c.node()));
  Dims out = ins[0]->dims();
  out[axis] = 0;
  for (const Tensor* t : ins) {
    if (t->dims().size() != out.size() || t->type() != ins[0]->type()) throw ModelError("Concat: inputs disagree in rank or type");
    for (size_t i = 0; i < out.size(); ++i)
      if (i != axis && t->dims()[i] != ins[0]->dims()[i])
        throw ModelError("Concat: inputs differ in dimension " + std::to_string(i) + ", which is not the axis");
    out[axis] += t->dims()[axis];
  }
  const size_t es = ElementSize(ins[0]->type());
  int64_t outer = 1;
  for (size_t i = 0; i < axis; ++i) outer *= out[i];
  std::byte* dst = c.AllocateOutput(0, ins[0]->type(), out);
  for (int64_t o = 0; o < outer; ++o)
    for (const Tensor* t : ins) {
      size_t chunk = static_cast<size_t>(outer ? t->num_elements() / outer : 0) * es;
      std::memcpy(dst, t->bytes().data() + o * chunk, chunk);
      dst += chunk;
    }
  return KernelResult::kDone;
}

KernelResult Split(KernelCall& c) {
  const Tensor& x = c.tensor(0);
  if (!Fixed(x)) return KernelResult::kUnsupported;
  const size_t axis = static_cast<size_t>(Axis(c.node().GetInt("axis", 0), static_cast<int64_t>(x.dims().size()), c.node()));
  bool given = false;
  auto split = IntsFromInputOrAttr(c, 1, "split", &given);
  const int64_t len = x.dims()[axis], parts = static_cast<int64_t>(c.num_outputs());
  if (!given || split.empty()) {
    if (len % parts != 0) return KernelResult::kUnsupported;
    split.assign(static_cast<size_t>(parts), len / parts);
  }
  // The parts must tile the axis exactly: negative or too-long parts would read past the input.
  int64_t total = 0;
  for (int64_t s : split) {
    if (s < 0 || s > len)
      throw ModelError("Split: part " + std::to_string(s) + " is not within the axis of " + std::to_string(len));
    total += s;
  }
  if (split.size() != c.num_outputs() || total != len)
    throw ModelError("Split: " + std::to_string(split.size()) + " parts of " + std::to_string(total) +
                     " elements do not split an axis of " + std::to_string(len) + " into " +
                     std::to_string(c.num_outputs()) + " outputs");
  int64_t outer = 1, inner = 1;
  for (size_t i = 0; i < axis; ++i) outer *= x.dims()[i];
  for (size_t i = axis + 1; i < x.dims().size(); ++i) inner *= x.dims()[i];
  const size_t es = ElementSize(x.type());
  int64_t offset = 0;
  for (size_t k = 0; k < split.size() && k < c.num_outputs(); ++k) {
    Dims d = x.dims();
    d[axis] = split[k];
    std::byte* dst = c.AllocateOutput(k, x.type(), d);
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(dst + o * split[k] * inner * es, x.bytes().data() + (o * len + offset) * inner * es,
                  static_cast<size_t>(split[k] * inner) * es);
    offset += split[k];
  }
  return KernelResult::kDone;
}

// Copies the elements of `x` at `src_index[k]` into a new tensor of `dims`.
void Gathered(KernelCall& c, const Tensor& x, const Dims& dims, const std::vector<int64_t>& src_index) {
  const size_t es = ElementSize(x.type());
  std::byte* dst = c.AllocateOutput(0, x.type(), dims);
  const std::byte* src = x.bytes().data();
  for (size_t k = 0; k < src_index.size(); ++k) std::memcpy(dst + k * es, src + src_index[k] * es, es);
}

KernelResult Slice(KernelCall& c) {
  const Tensor& x = c.tensor(0);
  if (!Fixed(x)) return KernelResult::kUnsupported;
  const int64_t r = static_cast<int64_t>(x.dims().size());
  std::vector<int64_t> starts, ends, axes, steps;
  if (c.opset() < 10) {
    starts = c.node().GetInts("starts"), ends = c.node().GetInts("ends"), axes = c.node().GetInts("axes");
  } else {
    starts = ReadInts(c.tensor(1)), ends = ReadInts(c.tensor(2));
    if (c.has_input(3)) axes = ReadInts(c.tensor(3));
    if (c.has_input(4)) steps = ReadInts(c.tensor(4));
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  // One start, end, axis and step per sliced axis (a Slice-1 whose `ends` was missing read past it: found by the
  // compile_diff fuzzer, UBSan).
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    throw ModelError("Slice: " + std::to_string(starts.size()) + " starts, " + std::to_string(ends.size()) +
                     " ends, " + std::to_string(axes.size()) + " axes and " + std::to_string(steps.size()) +
                     " steps; they must be as many");
  Dims begin(static_cast<size_t>(r), 0), step(static_cast<size_t>(r), 1), out = x.dims();
  for (size_t i = 0; i < axes.size(); ++i) {
    size_t a = static_cast<size_t>(Axis(axes[i], r, c.node()));
    int64_t d = x.dims()[a], s = steps[i];
    if (s == 0) throw ModelError("Slice: step is zero");
    int64_t b = starts[i] < 0 ? starts[i] + d : starts[i], e = ends[i] < 0 ? ends[i] + d : ends[i];
    if (s > 0) b = std::clamp<int64_t>(b, 0, d), e = std::clamp<int64_t>(e, 0, d);
    else b = std::clamp<int64_t>(b, -1, d - 1), e = std::clamp<int64_t>(e, -1, d - 1);
    int64_t n = s > 0 ? (e - b + s - 1) / s : (b - e - s - 1) / -s;
    begin[a] = b, step[a] = s, out[a] = std::max<int64_t>(0, n);
  }
  Dims strides = Strides(x.dims());
  std::vector<int64_t> idx(static_cast<size_t>(Count(out)));
  Dims counter(out.size(), 0);
  for (size_t k = 0; k < idx.size(); ++k) {
    int64_t off = 0;
    for (size_t a = 0; a < out.size(); ++a) off += (begin[a] + counter[a] * step[a]) * strides[a];
    idx[k] = off;
    for (size_t a = out.size(); a-- > 0;) {
      if (++counter[a] < out[a]) break;
      counter[a] = 0;
    }
  }
  Gathered(c, x, out, idx);
  return KernelResult::kDone;
}

KernelResult Gather(KernelCall& c) {
  const Tensor& x = c.tensor(0);
  if (!Fixed(x)) return KernelResult::kUnsupported;
  std::vector<int64_t> ind = ReadInts(c.tensor(1));
  const Dims& id = c.tensor(1).dims();
  const size_t axis = static_cast<size_t>(Axis(c.node().GetInt("axis", 0), static_cast<int64_t>(x.dims().size()), c.node()));
  const int64_t len = x.dims()[axis];
  int64_t outer = 1, inner = 1;
  for (size_t i = 0; i < axis; ++i) outer *= x.dims()[i];
  for (size_t i = axis + 1; i < x.dims().size(); ++i) inner *= x.dims()[i];
  Dims out(x.dims().begin(), x.dims().begin() + static_cast<ptrdiff_t>(axis));
  out.insert(out.end(), id.begin(), id.end());
  out.insert(out.end(), x.dims().begin() + static_cast<ptrdiff_t>(axis) + 1, x.dims().end());
  std::vector<int64_t> idx;
  idx.reserve(static_cast<size_t>(outer * static_cast<int64_t>(ind.size()) * inner));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j : ind) {
      if (j < -len || j >= len) throw ModelError("Gather: index " + std::to_string(j) + " is out of range");
      if (j < 0) j += len;
      for (int64_t i = 0; i < inner; ++i) idx.push_back((o * len + j) * inner + i);
    }
  Gathered(c, x, out, idx);
  return KernelResult::kDone;
}

KernelResult Transpose(KernelCall& c) {
  const Tensor& x = c.tensor(0);
  if (!Fixed(x)) return KernelResult::kUnsupported;
  const size_t r = x.dims().size();
  std::vector<int64_t> perm = c.node().GetInts("perm");
  if (perm.empty())
    for (size_t i = 0; i < r; ++i) perm.push_back(static_cast<int64_t>(r - 1 - i));
  if (perm.size() != r) throw ModelError("Transpose: perm has the wrong length");
  std::vector<bool> seen(r, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(r) || seen[static_cast<size_t>(p)])
      throw ModelError("Transpose: perm is not a permutation of the input's " + std::to_string(r) + " axes");
    seen[static_cast<size_t>(p)] = true;
  }
  Dims out(r), in_strides = Strides(x.dims()), strides(r);
  for (size_t i = 0; i < r; ++i) out[i] = x.dims()[static_cast<size_t>(perm[i])], strides[i] = in_strides[static_cast<size_t>(perm[i])];
  std::vector<int64_t> idx(static_cast<size_t>(Count(out)));
  Dims counter(r, 0);
  int64_t cur = 0;
  for (size_t k = 0; k < idx.size(); ++k) {
    idx[k] = cur;
    for (size_t a = r; a-- > 0;) {
      cur += strides[a];
      if (++counter[a] < out[a]) break;
      cur -= strides[a] * counter[a];
      counter[a] = 0;
    }
  }
  Gathered(c, x, out, idx);
  return KernelResult::kDone;
}

KernelResult Expand(KernelCall& c) {
  const Tensor& x = c.tensor(0);
  if (!Fixed(x)) return KernelResult::kUnsupported;
  Dims out = BroadcastDims(x.dims(), ReadInts(c.tensor(1)), c.node());
  Gathered(c, x, out, BroadcastIndices(x.dims(), out));
  return KernelResult::kDone;
}

KernelResult Where(KernelCall& c) {
  const Tensor &cond = c.tensor(0), &a = c.tensor(1), &b = c.tensor(2);
  if (!Fixed(a) || cond.type() != DataType::kBool) return KernelResult::kUnsupported;
  // X and Y share one element type (the copy below reads an element of X's size from either).
  if (b.type() != a.type()) throw ModelError("Where: X and Y have different element types");
  Dims out = BroadcastDims(BroadcastDims(cond.dims(), a.dims(), c.node()), b.dims(), c.node());
  auto ci = BroadcastIndices(cond.dims(), out), ai = BroadcastIndices(a.dims(), out), bi = BroadcastIndices(b.dims(), out);
  const size_t es = ElementSize(a.type());
  std::byte* dst = c.AllocateOutput(0, a.type(), out);
  auto cv = cond.values<uint8_t>();
  for (size_t k = 0; k < ci.size(); ++k)
    std::memcpy(dst + k * es, (cv[ci[k]] ? a : b).bytes().data() + (cv[ci[k]] ? ai[k] : bi[k]) * es, es);
  return KernelResult::kDone;
}

KernelResult Cast(KernelCall& c) {
  const Tensor& x = c.tensor(0);
  auto to = static_cast<DataType>(c.node().GetInt("to", 0));
  bool ok = false;
  DispatchNumeric(x.type(), [&]<typename S>() {
    ok = DispatchNumeric(to, [&]<typename D>() {
      auto in = x.values<S>();
      D* out = c.AllocateOutputAs<D>(0, to, x.dims());
      for (size_t i = 0; i < in.size(); ++i) {
        if constexpr (std::is_same_v<D, uint8_t>) out[i] = in[i] != S(0);  // to bool
        else out[i] = static_cast<D>(in[i]);
      }
    }, /*with_bool=*/true);
  }, /*with_bool=*/true);
  return ok ? KernelResult::kDone : KernelResult::kUnsupported;
}

}  // namespace

void RegisterBuiltinDataKernels(KernelRegistry& r) {
  Add(r, "Concat", Concat);
  Add(r, "Split", Split);
  Add(r, "Slice", Slice);
  Add(r, "Gather", Gather);
  Add(r, "Transpose", Transpose);
  Add(r, "Expand", Expand);
  Add(r, "Where", Where);
  Add(r, "Cast", Cast);
}

}  // namespace kiln::builtin
