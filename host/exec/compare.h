// Comparing run-time values the way ONNX's test runner does (numpy's assert_allclose: |a - e| <= atol + rtol *
// |e|, NaN equals NaN), reporting the worst element.
#pragma once

#include <string>

#include "kernels/runtime_value.h"

namespace kiln {

struct Comparison {
  bool match = true;
  std::string message;  // why not, or the worst element when it matches
  double worst_abs = 0, worst_rel = 0;
  int64_t worst_index = -1;
  double expected_at_worst = 0, actual_at_worst = 0;
};

Comparison CompareValues(const RtValue& expected, const RtValue& actual, double rtol, double atol);

}  // namespace kiln
