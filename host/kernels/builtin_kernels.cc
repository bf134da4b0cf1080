// The host's built-in kernels: GE's host-kernel set mapped onto ONNX (shape arithmetic and the simple math that
// exported models feed it), level two of the kernel dispatch. They handle float, double, int32, int64 and bool;
// anything else answers unsupported and is left to plugin kernels.
#include "kernels/builtin_util.h"

namespace kiln {
namespace builtin {

Dims BroadcastDims(const Dims& a, const Dims& b, const Node& n) {
  size_t r = std::max(a.size(), b.size());
  Dims out(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t x = i + a.size() >= r ? a[i + a.size() - r] : 1;
    int64_t y = i + b.size() >= r ? b[i + b.size() - r] : 1;
    if (x != y && x != 1 && y != 1)
      throw ModelError("node '" + n.name() + "' (" + n.op_type() + "): shapes cannot be broadcast together");
    out[i] = x == 1 ? y : x;
  }
  return out;
}

std::vector<int64_t> BroadcastIndices(const Dims& in, const Dims& out) {
  const int64_t total = Count(out);
  std::vector<int64_t> idx(static_cast<size_t>(total));
  Dims in_strides = Strides(in), eff(out.size(), 0);
  for (size_t i = 0; i < in.size(); ++i) eff[out.size() - in.size() + i] = in[i] == 1 ? 0 : in_strides[i];
  Dims counter(out.size(), 0);
  int64_t cur = 0;
  for (int64_t k = 0; k < total; ++k) {
    idx[static_cast<size_t>(k)] = cur;
    for (size_t d = out.size(); d-- > 0;) {
      cur += eff[d];
      if (++counter[d] < out[d]) break;
      cur -= eff[d] * counter[d];
      counter[d] = 0;
    }
  }
  return idx;
}

std::vector<int64_t> ReadInts(const Tensor& t) {
  if (t.type() == DataType::kInt64) {
    auto v = t.values<int64_t>();
    return {v.begin(), v.end()};
  }
  if (t.type() == DataType::kInt32) {
    auto v = t.values<int32_t>();
    return {v.begin(), v.end()};
  }
  throw ModelError("expected an int32 or int64 tensor, got " + std::string(DataTypeName(t.type())));
}

std::vector<int64_t> IntsFromInputOrAttr(const KernelCall& call, size_t i, const char* attr, bool* present) {
  if (call.has_input(i)) {
    *present = true;
    return ReadInts(call.tensor(i));
  }
  const Attribute* a = call.node().FindAttribute(attr);
  *present = a != nullptr;
  return a ? a->ints : std::vector<int64_t>{};
}

}  // namespace builtin

void RegisterBuiltinKernels(KernelRegistry& registry) {
  builtin::RegisterBuiltinShapeKernels(registry);
  builtin::RegisterBuiltinMathKernels(registry);
  builtin::RegisterBuiltinDataKernels(registry);
}

}  // namespace kiln
