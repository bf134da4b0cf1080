// A value at run time (the reference executor, kernels, folding): a tensor, a sequence of tensors, or nothing
// (an absent optional input, or an optional holding none). Tensors share their bytes (ir/tensor.h).
#pragma once

#include <memory>
#include <vector>

#include "ir/tensor.h"

namespace kiln {

struct RtValue {
  enum class Kind { kNone, kTensor, kSequence };
  Kind kind = Kind::kNone;
  std::shared_ptr<const Tensor> tensor;                  // kTensor
  std::vector<std::shared_ptr<const Tensor>> sequence;   // kSequence
  DataType sequence_elem = DataType::kUndefined;         // kSequence: element type, also when empty
  bool is_optional = false;  // the value has an optional type (so kNone means "optional holding nothing")

  static RtValue None() { return {}; }
  static RtValue Of(std::shared_ptr<const Tensor> t) {
    RtValue v;
    v.kind = Kind::kTensor;
    v.tensor = std::move(t);
    return v;
  }
  static RtValue Of(Tensor t) { return Of(std::make_shared<const Tensor>(std::move(t))); }
  static RtValue Sequence(DataType elem, std::vector<std::shared_ptr<const Tensor>> items) {
    RtValue v;
    v.kind = Kind::kSequence;
    v.sequence_elem = elem;
    v.sequence = std::move(items);
    return v;
  }
  bool is_tensor() const { return kind == Kind::kTensor; }
  bool is_none() const { return kind == Kind::kNone; }
};

// A tensor whose bytes a kernel is filling: `data` is writable until the tensor is handed on.
struct OutputTensor {
  std::shared_ptr<const Tensor> tensor;
  std::byte* data = nullptr;
};

// Allocates a zeroed tensor of `type` and `dims` (strings: `count` empty strings).
OutputTensor AllocateTensor(DataType type, std::vector<int64_t> dims);

}  // namespace kiln
