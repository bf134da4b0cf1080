// Taking one slice of a tensor along an axis, and stacking slices along a new axis: what Loop and Scan need to
// split scan inputs and gather scan outputs.
#pragma once

#include <memory>
#include <vector>

#include "ir/tensor.h"

namespace kiln {

// The index-th slice along `axis`, with that axis removed.
Tensor SliceAlongAxis(const Tensor& t, size_t axis, int64_t index);
// Stacks same-shaped tensors along a new axis `axis` (0..rank). `type` and `elem_dims` describe an empty stack.
Tensor StackAlongAxis(const std::vector<std::shared_ptr<const Tensor>>& items, size_t axis, DataType type,
                      const std::vector<int64_t>& elem_dims);

}  // namespace kiln
