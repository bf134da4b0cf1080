// Reading small integer constants (axes, shapes, pads) that the clean-up passes match on.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <optional>
#include <vector>

namespace kiln::folding {

// The values of a constant INT64 or INT32 tensor; nullopt when `v` is absent, not constant, or of another type.
inline std::optional<std::vector<int64_t>> ConstInts(const sdk::Value& v) {
  if (!v || !v.IsConstant()) return std::nullopt;
  sdk::TensorView t = v.ConstantData();
  if (!t) return std::nullopt;
  if (t.ElemType() == KILN_ELEM_INT64) return std::vector<int64_t>(t.Values<int64_t>().begin(), t.Values<int64_t>().end());
  if (t.ElemType() == KILN_ELEM_INT32) return std::vector<int64_t>(t.Values<int32_t>().begin(), t.Values<int32_t>().end());
  return std::nullopt;
}

}  // namespace kiln::folding
