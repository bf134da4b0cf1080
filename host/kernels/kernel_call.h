// One kernel invocation: the node being computed (op type, attributes, opset), its inputs as run-time values,
// and the outputs the kernel fills. The same call shape serves the built-in kernels, plugin kernels (through the
// ABI's kernel context), the reference executor and constant folding.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernels/runtime_value.h"

namespace kiln {

class Node;

class KernelCall {
 public:
  KernelCall(const Node& node, int64_t opset, std::span<const RtValue> inputs, size_t num_outputs)
      : node_(node), opset_(opset), inputs_(inputs), outputs_(num_outputs) {}

  const Node& node() const { return node_; }
  int64_t opset() const { return opset_; }
  size_t num_inputs() const { return inputs_.size(); }
  // RtValue::None() for an absent input.
  const RtValue& input(size_t i) const;
  // The tensor of input i; throws kiln::Error when it is absent or not a tensor.
  const Tensor& tensor(size_t i) const;
  bool has_input(size_t i) const { return i < inputs_.size() && !inputs_[i].is_none(); }

  size_t num_outputs() const { return outputs_.size(); }
  // Allocates output i as a zeroed tensor and returns its writable bytes.
  std::byte* AllocateOutput(size_t i, DataType type, std::vector<int64_t> dims);
  template <typename T>
  T* AllocateOutputAs(size_t i, DataType type, std::vector<int64_t> dims) {
    return reinterpret_cast<T*>(AllocateOutput(i, type, std::move(dims)));
  }
  void SetOutput(size_t i, RtValue v);
  std::vector<RtValue>& outputs() { return outputs_; }

 private:
  const Node& node_;
  int64_t opset_;
  std::span<const RtValue> inputs_;
  std::vector<RtValue> outputs_;
};

}  // namespace kiln
