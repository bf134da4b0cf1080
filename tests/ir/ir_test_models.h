// Small models with functions shared by the IR tests.
#pragma once

#include <string>

#include "support/function_text.h"

namespace kiln::testing {

// main: z = Max(test.Scale<alpha>(Add(x, y)), 0)   Scale(v) = v * alpha   (alpha an attribute reference)
inline const char* kScaleModel = R"(
<ir_version: 8, opset_import: ["" : 17, "test" : 1]>
g (float[2] x, float[2] y) => (float[2] z) {
  a = Add (x, y)
  b = test.Scale <alpha = 2.0> (a)
  zero = Constant <value = float {0.0}> ()
  z = Max (b, zero)
}
)";

inline FunctionText ScaleFunction() {
  return {"test", R"(Scale (float[2] v) => (float[2] w) {
    k = Constant <value_float = "@alpha:f"> ()
    w = Mul (v, k)
  })", {"alpha"}};
}

}  // namespace kiln::testing
