// Helpers for the ascend_target tests: the round-number test chip, and OpNode / TensorInfo builders.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cost_model.h"
#include "op_node.h"
#include "target_description.h"

namespace kiln::ascend::testing {

constexpr int32_t kF32 = 1, kI8 = 3, kI32 = 6, kI64 = 7, kF16 = 10, kBool = 9;

inline TargetDescription TestChip() { return LoadDescription(std::string(KILN_ASCEND_TEST_DIR) + "/test_chip.yaml"); }
inline TargetDescription Shipped(const std::string& name) {
  return LoadDescription(std::string(KILN_TARGETS_DIR) + "/" + name + ".yaml");
}

inline TensorInfo T(std::string id, int32_t type, std::vector<int64_t> dims) {
  TensorInfo t;
  t.id = std::move(id);
  t.elem_type = type;
  t.dims = std::move(dims);
  t.symbols.assign(t.dims->size(), "");
  return t;
}
inline TensorInfo Const(TensorInfo t) {
  t.constant = true;
  return t;
}
inline TensorInfo Ints(std::string id, std::vector<int64_t> values) {
  TensorInfo t = T(std::move(id), kI64, {static_cast<int64_t>(values.size())});
  t.constant = true;
  t.int_values = std::move(values);
  return t;
}
inline TensorInfo Outside(TensorInfo t) {
  t.read_outside = true;
  return t;
}

inline OpNode Op(std::string op, std::vector<std::optional<TensorInfo>> in, std::vector<std::optional<TensorInfo>> out,
                 std::map<std::string, AttrValue, std::less<>> attrs = {}) {
  OpNode n;
  n.op_type = op;
  n.name = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  n.attrs = std::move(attrs);
  return n;
}

// Relative comparison for seconds and FLOPs.
#define EXPECT_REL(actual, expected) EXPECT_NEAR((actual), (expected), std::abs(expected) * 1e-9 + 1e-18)

}  // namespace kiln::ascend::testing
