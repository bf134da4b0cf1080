// Built-in kernels that compute or change shapes without touching values: Shape, Size, Reshape, Squeeze,
// Unsqueeze, Flatten, Identity, Constant, ConstantOfShape, Range.
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/builtin_util.h"

namespace kiln::builtin {
namespace {

// The same bytes under new dims (no copy: the buffer is shared).
RtValue Reshaped(const Tensor& t, Dims dims) {
  if (t.type() == DataType::kString) return RtValue::Of(Tensor::FromStrings(std::move(dims), t.strings()));
  return RtValue::Of(Tensor(t.type(), std::move(dims), t.buffer()));
}

KernelResult Shape(KernelCall& c) {
  const Dims& d = c.tensor(0).dims();
  int64_t r = static_cast<int64_t>(d.size());
  int64_t start = c.node().GetInt("start", 0), end = c.node().GetInt("end", r);
  start = std::clamp(start < 0 ? start + r : start, int64_t{0}, r);
  end = std::clamp(end < 0 ? end + r : end, int64_t{0}, r);
  int64_t n = std::max<int64_t>(0, end - start);
  auto* out = c.AllocateOutputAs<int64_t>(0, DataType::kInt64, {n});
  for (int64_t i = 0; i < n; ++i) out[i] = d[static_cast<size_t>(start + i)];
  return KernelResult::kDone;
}

KernelResult Size(KernelCall& c) {
  *c.AllocateOutputAs<int64_t>(0, DataType::kInt64, {}) = c.tensor(0).num_elements();
  return KernelResult::kDone;
}

KernelResult Reshape(KernelCall& c) {
  const Tensor& x = c.tensor(0);
  std::vector<int64_t> shape;
  if (c.opset() < 5) shape = c.node().GetInts("shape");
  else shape = ReadInts(c.tensor(1));
  const bool allowzero = c.node().GetInt("allowzero", 0) != 0;
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && !allowzero) {
      if (i >= x.dims().size()) throw ModelError("Reshape: 0 at position " + std::to_string(i) + " has no input dim");
      shape[i] = x.dims()[i];
    }
    if (shape[i] == -1) {
      if (infer >= 0) throw ModelError("Reshape: more than one -1 in the shape");
      infer = static_cast<int64_t>(i);
    } else {
      // A negative size or a product past int64 is no shape (the fuzzer found the overflow).
      if (shape[i] < 0) throw ModelError("Reshape: size " + std::to_string(shape[i]) + " is negative");
      if (shape[i] > 0 && known > std::numeric_limits<int64_t>::max() / shape[i])
        throw ModelError("Reshape: the shape has more elements than int64 can count");
      known *= shape[i];
    }
  }
  if (infer >= 0) {
    if (known == 0 || x.num_elements() % known != 0) throw ModelError("Reshape: cannot infer the -1 dimension");
    shape[static_cast<size_t>(infer)] = x.num_elements() / known;
  }
  if (Count(shape) != x.num_elements())
    throw ModelError("Reshape: " + std::to_string(x.num_elements()) + " elements do not fit the requested shape");
  c.SetOutput(0, Reshaped(x, std::move(shape)));
  return KernelResult::kDone;
}

KernelResult Squeeze(KernelCall& c) {
  const Tensor& x = c.tensor(0);
  bool given = false;
  auto axes = IntsFromInputOrAttr(c, 1, "axes", &given);
  const int64_t r = static_cast<int64_t>(x.dims().size());
  std::vector<bool> drop(x.dims().size(), false);
  if (!given || axes.empty()) {
    for (size_t i = 0; i < drop.size(); ++i) drop[i] = x.dims()[i] == 1;
  } else {
    for (int64_t a : axes) {
      int64_t ax = Axis(a, r, c.node());
      if (x.dims()[static_cast<size_t>(ax)] != 1) throw ModelError("Squeeze: axis " + std::to_string(a) + " is not 1");
      drop[static_cast<size_t>(ax)] = true;
    }
  }
  Dims out;
  for (size_t i = 0; i < drop.size(); ++i)
    if (!drop[i]) out.push_back(x.dims()[i]);
  c.SetOutput(0, Reshaped(x, std::move(out)));
  return KernelResult::kDone;
}

KernelResult Unsqueeze(KernelCall& c) {
  const Tensor& x = c.tensor(0);
  bool given = false;
  auto axes = IntsFromInputOrAttr(c, 1, "axes", &given);
  const int64_t r = static_cast<int64_t>(x.dims().size() + axes.size());
  std::vector<bool> inserted(static_cast<size_t>(r), false);
  for (int64_t a : axes) {
    int64_t ax = Axis(a, r, c.node());
    if (inserted[static_cast<size_t>(ax)]) throw ModelError("Unsqueeze: axis " + std::to_string(a) + " is repeated");
    inserted[static_cast<size_t>(ax)] = true;
  }
  Dims out;
  size_t k = 0;
  for (size_t i = 0; i < inserted.size(); ++i) out.push_back(inserted[i] ? 1 : x.dims()[k++]);
  c.SetOutput(0, Reshaped(x, std::move(out)));
  return KernelResult::kDone;
}

KernelResult Flatten(KernelCall& c) {
  const Tensor& x = c.tensor(0);
  const int64_t r = static_cast<int64_t>(x.dims().size());
  int64_t axis = c.node().GetInt("axis", 1);
  if (axis < 0) axis += r;
  if (axis < 0 || axis > r) throw ModelError("Flatten: axis out of range");
  int64_t outer = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= x.dims()[static_cast<size_t>(i)];
  c.SetOutput(0, Reshaped(x, {outer, outer == 0 ? 0 : x.num_elements() / std::max<int64_t>(outer, 1)}));
  return KernelResult::kDone;
}

KernelResult Identity(KernelCall& c) {
  c.SetOutput(0, c.input(0));
  return KernelResult::kDone;
}

KernelResult Constant(KernelCall& c) {
  const Node& n = c.node();
  for (const Attribute& a : n.attributes()) {
    if (a.name == "value" && a.t) {
      c.SetOutput(0, RtValue::Of(*a.t));
    } else if (a.name == "value_float" && a.f) {
      *c.AllocateOutputAs<float>(0, DataType::kFloat, {}) = *a.f;
    } else if (a.name == "value_int" && a.i) {
      *c.AllocateOutputAs<int64_t>(0, DataType::kInt64, {}) = *a.i;
    } else if (a.name == "value_floats") {
      auto* o = c.AllocateOutputAs<float>(0, DataType::kFloat, {static_cast<int64_t>(a.floats.size())});
      std::copy(a.floats.begin(), a.floats.end(), o);
    } else if (a.name == "value_ints") {
      auto* o = c.AllocateOutputAs<int64_t>(0, DataType::kInt64, {static_cast<int64_t>(a.ints.size())});
      std::copy(a.ints.begin(), a.ints.end(), o);
    } else if (a.name == "value_string" && a.s) {
      c.SetOutput(0, RtValue::Of(Tensor::FromStrings({}, {*a.s})));
    } else if (a.name == "value_strings") {
      c.SetOutput(0, RtValue::Of(Tensor::FromStrings({static_cast<int64_t>(a.strings.size())}, a.strings)));
    } else {
      continue;
    }
    return KernelResult::kDone;
  }
  return KernelResult::kUnsupported;  // sparse_value: left to plugin kernels
}

KernelResult ConstantOfShape(KernelCall& c) {
  Dims dims = ReadInts(c.tensor(0));
  const Attribute* a = c.node().FindAttribute("value");
  if (a == nullptr || !a->t) {
    c.AllocateOutput(0, DataType::kFloat, dims);
    return KernelResult::kDone;
  }
  const Tensor& v = *a->t;
  if (v.type() == DataType::kString) return KernelResult::kUnsupported;
  const size_t es = ElementSize(v.type());
  std::byte* out = c.AllocateOutput(0, v.type(), dims);
  for (int64_t i = 0, n = Count(dims); i < n; ++i) std::memcpy(out + i * es, v.bytes().data(), es);
  return KernelResult::kDone;
}

KernelResult Range(KernelCall& c) {
  const DataType t = c.tensor(0).type();
  for (size_t i = 0; i < 3; ++i)
    if (c.tensor(i).num_elements() != 1) throw ModelError("Range: start, limit and delta must be scalars");
  bool ok = DispatchNumeric(t, [&]<typename T>() {
    T start = c.tensor(0).values<T>()[0], limit = c.tensor(1).values<T>()[0], delta = c.tensor(2).values<T>()[0];
    if (delta == T(0)) throw ModelError("Range: delta is zero");
    double count = std::ceil((static_cast<double>(limit) - static_cast<double>(start)) / static_cast<double>(delta));
    // NaN or infinite bounds, or more elements than int64 counts, are no range (the fuzzer found a NaN limit).
    if (!(count < 9.2e18)) throw ModelError("Range: the number of elements is not finite or too large");
    int64_t n = count > 0 ? static_cast<int64_t>(count) : 0;
    T* out = c.AllocateOutputAs<T>(0, t, {n});
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(start + static_cast<T>(i) * delta);
  });
  return ok ? KernelResult::kDone : KernelResult::kUnsupported;
}

}  // namespace

void RegisterBuiltinShapeKernels(KernelRegistry& r) {
  Add(r, "Shape", Shape);
  Add(r, "Size", Size);
  Add(r, "Reshape", Reshape);
  Add(r, "Squeeze", Squeeze);
  Add(r, "Unsqueeze", Unsqueeze);
  Add(r, "Flatten", Flatten);
  Add(r, "Identity", Identity);
  Add(r, "Constant", Constant);
  Add(r, "ConstantOfShape", ConstantOfShape);
  Add(r, "Range", Range);
}

}  // namespace kiln::builtin
