#include "exec/axis_ops.h"

#include <cstring>

#include "kernels/runtime_value.h"
#include "support/error.h"

namespace kiln {
namespace {

int64_t Product(const std::vector<int64_t>& d, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t i = from; i < to; ++i) n *= d[i];
  return n;
}

}  // namespace

Tensor SliceAlongAxis(const Tensor& t, size_t axis, int64_t index) {
  const auto& dims = t.dims();
  if (axis >= dims.size() || index < 0 || index >= dims[axis]) throw ModelError("scan slice out of range");
  std::vector<int64_t> out_dims = dims;
  out_dims.erase(out_dims.begin() + static_cast<ptrdiff_t>(axis));
  const int64_t outer = Product(dims, 0, axis), inner = Product(dims, axis + 1, dims.size()), len = dims[axis];
  OutputTensor o = AllocateTensor(t.type(), out_dims);
  if (t.type() == DataType::kString) {
    std::vector<std::string> s(static_cast<size_t>(outer * inner));
    for (int64_t a = 0; a < outer; ++a)
      for (int64_t b = 0; b < inner; ++b) s[a * inner + b] = t.strings()[(a * len + index) * inner + b];
    return Tensor::FromStrings(out_dims, std::move(s));
  }
  const size_t es = ElementSize(t.type());
  const std::byte* src = t.bytes().data();
  for (int64_t a = 0; a < outer; ++a)
    std::memcpy(o.data + a * inner * es, src + ((a * len + index) * inner) * es, inner * es);
  return *o.tensor;
}

Tensor StackAlongAxis(const std::vector<std::shared_ptr<const Tensor>>& items, size_t axis, DataType type,
                      const std::vector<int64_t>& elem_dims) {
  std::vector<int64_t> dims = items.empty() ? elem_dims : items[0]->dims().vec();
  if (!items.empty()) type = items[0]->type();
  if (axis > dims.size()) throw ModelError("scan output axis out of range");
  for (const auto& it : items)
    if (it->dims() != dims) throw ModelError("scan outputs change shape between iterations");
  const int64_t count = static_cast<int64_t>(items.size());
  const int64_t outer = Product(dims, 0, axis), inner = Product(dims, axis, dims.size());
  std::vector<int64_t> out_dims = dims;
  out_dims.insert(out_dims.begin() + static_cast<ptrdiff_t>(axis), count);
  if (type == DataType::kString) {
    std::vector<std::string> s(static_cast<size_t>(outer * count * inner));
    for (int64_t a = 0; a < outer; ++a)
      for (int64_t k = 0; k < count; ++k)
        for (int64_t b = 0; b < inner; ++b) s[(a * count + k) * inner + b] = items[k]->strings()[a * inner + b];
    return Tensor::FromStrings(out_dims, std::move(s));
  }
  OutputTensor o = AllocateTensor(type, out_dims);
  const size_t es = ElementSize(type);
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t k = 0; k < count; ++k)
      std::memcpy(o.data + ((a * count + k) * inner) * es, items[k]->bytes().data() + a * inner * es, inner * es);
  return *o.tensor;
}

}  // namespace kiln
