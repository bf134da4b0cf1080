// Cast and CastLike between every pair of ONNX 1.12 element types: the numeric types, bool, float16, bfloat16 and
// string. Numbers go to bool as x != 0; float to bfloat16 truncates the low mantissa bits (as ONNX 1.12's
// reference does); numbers print as the shortest text that reads back to the same value; text reads with strtod
// (so "NaN", "INF", "+INF", "-INF" work) or as an integer.
#include "core/ew_util.h"
#include <kiln/kiln_plugin_parts.hpp>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace kiln::kernels {
namespace {

using namespace ew;

bfloat16 TruncateToBFloat16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  uint16_t hi = static_cast<uint16_t>(bits >> 16);
  if (std::isnan(f)) hi = static_cast<uint16_t>((hi & 0x8000) | 0x7fc0);  // keep NaN a NaN
  return Eigen::numext::bit_cast<bfloat16>(hi);
}

template <typename S, typename D>
D ConvertOne(S v) {
  using CS = Compute<S>;
  const CS c = static_cast<CS>(v);
  if constexpr (std::is_same_v<D, bool>) {
    return c != CS(0);
  } else if constexpr (std::is_same_v<D, bfloat16>) {
    if constexpr (std::is_same_v<S, bfloat16>) return v;
    else return TruncateToBFloat16(static_cast<float>(c));
  } else if constexpr (std::is_same_v<D, half>) {
    if constexpr (std::is_same_v<S, half>) return v;
    else return static_cast<half>(static_cast<float>(c));
  } else {
    return static_cast<D>(c);
  }
}

template <typename S>
std::string ToText(S v) {
  if constexpr (std::is_same_v<S, bool>) {
    return v ? "1" : "0";
  } else if constexpr (std::is_floating_point_v<Compute<S>>) {
    using C = Compute<S>;
    const C c = static_cast<C>(v);
    if (std::isnan(c)) return "NaN";
    if (std::isinf(c)) return c > 0 ? "INF" : "-INF";
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, c);
    return std::string(buf, r.ptr);
  } else {
    return std::to_string(v);
  }
}

template <typename D>
D FromText(std::string_view s) {
  std::string text(s);
  const char* begin = text.c_str();
  char* end = nullptr;
  if constexpr (std::is_floating_point_v<Compute<D>> || std::is_same_v<D, bool>) {
    const double v = std::strtod(begin, &end);
    if (end == begin || *end != '\0') Invalid("Cast: '" + text + "' is not a number");
    if constexpr (std::is_same_v<D, bool>) return v != 0;
    else if constexpr (std::is_same_v<D, bfloat16>) return TruncateToBFloat16(static_cast<float>(v));
    else return static_cast<D>(static_cast<Compute<D>>(v));
  } else if constexpr (std::is_signed_v<D>) {
    const long long v = std::strtoll(begin, &end, 10);
    if (end == begin || *end != '\0') Invalid("Cast: '" + text + "' is not an integer");
    return static_cast<D>(v);
  } else {
    const unsigned long long v = std::strtoull(begin, &end, 10);
    if (end == begin || *end != '\0') Invalid("Cast: '" + text + "' is not an integer");
    return static_cast<D>(v);
  }
}

// Cast-1 names the target type with a string.
int32_t ElemTypeFromName(std::string_view name) {
  static constexpr std::pair<std::string_view, int32_t> kNames[] = {
      {"FLOAT", KILN_ELEM_FLOAT},   {"UINT8", KILN_ELEM_UINT8},     {"INT8", KILN_ELEM_INT8},
      {"UINT16", KILN_ELEM_UINT16}, {"INT16", KILN_ELEM_INT16},     {"INT32", KILN_ELEM_INT32},
      {"INT64", KILN_ELEM_INT64},   {"STRING", KILN_ELEM_STRING},   {"BOOL", KILN_ELEM_BOOL},
      {"FLOAT16", KILN_ELEM_FLOAT16}, {"DOUBLE", KILN_ELEM_DOUBLE}, {"UINT32", KILN_ELEM_UINT32},
      {"UINT64", KILN_ELEM_UINT64}, {"BFLOAT16", KILN_ELEM_BFLOAT16}};
  for (const auto& [n, t] : kNames)
    if (n == name) return t;
  Invalid("Cast: unknown target type '" + std::string(name) + "'");
}

void CastTo(sdk::KernelContext& ctx, const sdk::TensorView& x, int32_t to) {
  sdk::MutableTensor y = ctx.AllocOutput(0, to, x.Dims());
  const int64_t n = x.ElementCount();
  const int32_t from = x.ElemType();
  if (from == KILN_ELEM_STRING && to == KILN_ELEM_STRING) {
    for (int64_t i = 0; i < n; ++i) y.SetString(i, x.StringAt(i));
  } else if (from == KILN_ELEM_STRING) {
    Dispatch<kAllPodTypes>(to, [&]<typename D>() {
      D* out = MutData<D>(y);
      for (int64_t i = 0; i < n; ++i) out[i] = FromText<D>(x.StringAt(i));
    });
  } else if (to == KILN_ELEM_STRING) {
    Dispatch<kAllPodTypes>(from, [&]<typename S>() {
      const S* in = Data<S>(x);
      for (int64_t i = 0; i < n; ++i) y.SetString(i, ToText(in[i]));
    });
  } else if (from == to) {
    if (n) std::memcpy(y.MutableData(), x.Data(), x.ByteSize());
  } else {
    Dispatch<kAllPodTypes>(from, [&]<typename S>() {
      const S* in = Data<S>(x);
      Dispatch<kAllPodTypes>(to, [&]<typename D>() {
        D* out = MutData<D>(y);
        for (int64_t i = 0; i < n; ++i) out[i] = ConvertOne<S, D>(in[i]);
      });
    });
  }
}

void Cast(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  sdk::Attribute to = ctx.Attr("to");
  if (!to) Invalid("Cast: attribute 'to' is missing");
  CastTo(ctx, x, to.Type() == KILN_ATTR_STRING ? ElemTypeFromName(to.String()) : static_cast<int32_t>(to.Int()));
}

void CastLike(sdk::KernelContext& ctx) {
  CastTo(ctx, ctx.RequiredInput(0), ctx.RequiredInput(1).ElemType());
}

}  // namespace

KILN_PLUGIN_PART(EwCast) {
  reg.AddKernelFn({.op_type = "Cast", .since_version = 1, .flags = kFlags}, Cast);
  reg.AddKernelFn({.op_type = "CastLike", .since_version = 15, .flags = kFlags}, CastLike);
}

}  // namespace kiln::kernels
