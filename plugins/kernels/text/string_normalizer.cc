// StringNormalizer (opset 10): drops stop words (case-sensitively or not) from a [C] or [1, C] string tensor and
// changes case (LOWER, UPPER or NONE). When every word is dropped the output holds one empty string ([1] or
// [1, 1]), as ONNX says. Case mapping is ASCII (the 'locale' attribute is accepted and ignored).
#include <cctype>
#include <string>
#include <unordered_set>

#include <kiln/kiln_plugin_parts.hpp>
#include "core/tensor_util.h"

namespace {

namespace sdk = kiln::sdk;
using namespace kiln::kernels;
using namespace kiln::kernels::tx;

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

void StringNormalizerKernel(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  if (x.ElemType() != KILN_ELEM_STRING) throw InvalidArg("StringNormalizer: the input must be strings");
  auto dims = x.Dims();
  const bool two_d = dims.size() == 2;
  if (!(dims.size() == 1 || (two_d && dims[0] == 1)))
    throw InvalidArg("StringNormalizer: the input must be [C] or [1, C]");
  const std::string action = ctx.GetString("case_change_action", "NONE");
  if (action != "NONE" && action != "LOWER" && action != "UPPER")
    throw InvalidArg("StringNormalizer: unknown case_change_action '" + action + "'");
  const bool case_sensitive = ctx.GetInt("is_case_sensitive", 0) != 0;
  std::unordered_set<std::string> stop;
  if (sdk::Attribute a = ctx.Attr("stopwords"))
    for (std::string_view w : a.Strings()) stop.insert(case_sensitive ? std::string(w) : Lower(w));
  std::vector<std::string> kept;
  const int64_t n = x.ElementCount();
  for (int64_t i = 0; i < n; ++i) {
    std::string_view s = x.StringAt(static_cast<size_t>(i));
    if (!stop.empty() && stop.count(case_sensitive ? std::string(s) : Lower(s))) continue;
    kept.push_back(action == "LOWER" ? Lower(s) : action == "UPPER" ? Upper(s) : std::string(s));
  }
  if (kept.empty()) kept.emplace_back();
  Dims out_dims = two_d ? Dims{1, static_cast<int64_t>(kept.size())} : Dims{static_cast<int64_t>(kept.size())};
  sdk::MutableTensor out = ctx.AllocOutput(0, KILN_ELEM_STRING, out_dims);
  for (size_t i = 0; i < kept.size(); ++i) out.SetString(i, kept[i]);
}

}  // namespace

KILN_PLUGIN_PART(TextStringNormalizer) {
  reg.AddKernelFn({.op_type = "StringNormalizer", .since_version = 10, .flags = kThreadSafe}, StringNormalizerKernel);
}
