// kiln_plugin_contexts.hpp - part of the C++20 wrapper over kiln_plugin.h (include kiln_plugin.hpp, not this):
// the contexts the host hands to a pass, a kernel and a shape function.
#pragma once

#include <kiln/kiln_plugin_model.hpp>

namespace kiln::sdk {

// ---------------------------------------------------------------------------------------------------------------
// Contexts handed to callbacks
// ---------------------------------------------------------------------------------------------------------------

class PassContext {
 public:
  PassContext(KilnPassContext* c, std::string_view logger) : c_(c), logger_(logger) {}
  KilnPassContext* raw() const { return c_; }

  void RequestRepass(Node n) const { Host().pass_request_repass(c_, n.raw()); }
  void RequestImmediateRepass(Node n) const { Host().pass_request_immediate_repass(c_, n.raw()); }
  void AddCounter(std::string_view name, int64_t delta = 1) const {
    Host().pass_add_counter(c_, std::string(name).c_str(), delta);
  }
  // Option values in effect: the pass's own options by short name, any other by full name.
  bool OptionBool(std::string_view name) const {
    int v = 0;
    Check(Host().pass_option_bool(c_, std::string(name).c_str(), &v));
    return v != 0;
  }
  int64_t OptionInt(std::string_view name) const {
    int64_t v = 0;
    Check(Host().pass_option_int(c_, std::string(name).c_str(), &v));
    return v;
  }
  double OptionFloat(std::string_view name) const {
    double v = 0;
    Check(Host().pass_option_float(c_, std::string(name).c_str(), &v));
    return v;
  }
  std::string OptionString(std::string_view name) const {
    const char* v = nullptr;
    Check(Host().pass_option_string(c_, std::string(name).c_str(), &v));
    return detail::OrEmpty(v);
  }
  // Logs under the pass's name.
  void Log(KilnLogLevel level, std::string_view message) const { sdk::Log(level, logger_, message); }
  // Attaches JSON text to the pass's entry of the compile report under "reports"/key (ABI 1.2).
  void AddReport(std::string_view key, std::string_view json) const {
    KILN_SDK_REQUIRE_SLOT(pass_add_report);
    Check(Host().pass_add_report(c_, std::string(key).c_str(), std::string(json).c_str()));
  }
  // A graph pass, where the graph is whole between two rewrites: lets the host keep the changes so far and free
  // what they removed (ABI 1.13 pass_checkpoint, which says when it declines). True when it kept them: handles of
  // removed nodes and values are then invalid. False on an older host.
  bool Checkpoint() const {
    if (!KILN_HOST_HAS(&Host(), pass_checkpoint)) return false;
    int32_t kept = 0;
    Check(Host().pass_checkpoint(c_, &kept));
    return kept != 0;
  }

 private:
  KilnPassContext* c_;
  std::string_view logger_;
};

class KernelContext : public AttributeReader<KernelContext> {
 public:
  explicit KernelContext(KilnKernelContext* c) : c_(c) {}
  KilnKernelContext* raw() const { return c_; }

  size_t InputCount() const { return Host().kernel_input_count(c_); }
  int32_t InputKind(size_t i) const { return Host().kernel_input_kind(c_, i); }
  // A tensor input; null for an empty slot or a non-tensor.
  TensorView Input(size_t i) const { return TensorView(Host().kernel_input(c_, i)); }
  // A tensor input that must be present.
  TensorView RequiredInput(size_t i) const {
    TensorView t = Input(i);
    if (!t) throw Error("input " + std::to_string(i) + " is missing or not a tensor", KILN_STATUS_INVALID_ARGUMENT);
    return t;
  }
  std::vector<TensorView> InputSequence(size_t i, int32_t* elem_type = nullptr) const {
    std::vector<TensorView> out(Host().kernel_input_sequence_length(c_, i, elem_type));
    for (size_t j = 0; j < out.size(); ++j) out[j] = TensorView(Host().kernel_input_sequence_element(c_, i, j));
    return out;
  }
  Attribute Attr(std::string_view name) const {
    return Attribute(Host().kernel_attribute(c_, std::string(name).c_str()));
  }
  int64_t OpsetVersion() const { return Host().kernel_opset_version(c_); }

  size_t OutputCount() const { return Host().kernel_output_count(c_); }
  MutableTensor AllocOutput(size_t i, int32_t elem_type, std::span<const int64_t> dims) const {
    KilnTensorView* t = nullptr;
    Check(Host().kernel_alloc_output(c_, i, elem_type, dims.size(), dims.data(), &t));
    return MutableTensor(t);
  }
  void AllocOutputSequence(size_t i, int32_t elem_type, size_t length) const {
    Check(Host().kernel_alloc_output_sequence(c_, i, elem_type, length));
  }
  MutableTensor AllocSequenceElement(size_t i, size_t position, std::span<const int64_t> dims) const {
    KilnTensorView* t = nullptr;
    Check(Host().kernel_alloc_sequence_element(c_, i, position, dims.size(), dims.data(), &t));
    return MutableTensor(t);
  }
  void SetOutputNone(size_t i) const { Check(Host().kernel_set_output_none(c_, i)); }

 private:
  KilnKernelContext* c_;
};

class ShapeContext : public AttributeReader<ShapeContext> {
 public:
  explicit ShapeContext(KilnShapeContext* c) : c_(c) {}
  KilnShapeContext* raw() const { return c_; }

  size_t InputCount() const { return Host().infer_input_count(c_); }
  int32_t InputElemType(size_t i) const { return Host().infer_input_elem_type(c_, i); }
  std::optional<TensorShape> InputShape(size_t i) const {
    const int64_t* dims = nullptr;
    int64_t rank = Host().infer_input_shape(c_, i, &dims);
    return detail::MakeShape(rank, dims, [&](size_t d) { return Host().infer_input_dim_symbol(c_, i, d); });
  }
  TensorView InputConstant(size_t i) const { return TensorView(Host().infer_input_constant(c_, i)); }
  Attribute Attr(std::string_view name) const {
    return Attribute(Host().infer_attribute(c_, std::string(name).c_str()));
  }
  size_t OutputCount() const { return Host().infer_output_count(c_); }
  void SetOutput(size_t i, int32_t elem_type, const std::optional<TensorShape>& shape) const {
    detail::ShapeArrays a(shape);
    Check(Host().infer_set_output(c_, i, elem_type, a.rank, a.dims.data(), a.symbols.data()));
  }

 private:
  KilnShapeContext* c_;
};

}  // namespace kiln::sdk
