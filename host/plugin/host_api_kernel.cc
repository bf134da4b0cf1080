// Host slots for computing: node_compute (a node through the kernel levels: plugin kernels, then the host's
// built-ins), its results, and the kernel context a plugin kernel reads its inputs from and allocates its outputs
// through.
#include <stdexcept>

#include "ir/graph.h"
#include "ir/model.h"
#include "kernels/kernel_registry.h"
#include "plugin/host_api.h"
#include "plugin/host_api_values.h"
#include "plugin/plugin_kernel.h"

struct KilnComputeResult {
  std::vector<kiln::RtValue> outputs;
  std::vector<std::unique_ptr<KilnTensorView>> views;  // built on first request, per output
  std::vector<std::vector<KilnString>> strings;
};

namespace kiln::plugin {
namespace {

int64_t OpsetOf(const Node& n) {
  if (auto v = n.graph()->model()->OpsetVersion(n.domain())) return *v;
  return 1;
}

std::vector<RtValue> InputsFor(const Node& node, const KilnTensorView* const* inputs, size_t count) {
  std::vector<RtValue> out(node.num_inputs());
  if (inputs == nullptr) {
    for (size_t i = 0; i < node.num_inputs(); ++i) {
      Value* v = node.input(i);
      if (v == nullptr) continue;
      std::shared_ptr<const Tensor> t = ConstantTensorOf(*v);
      if (!t)
        throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "input " + std::to_string(i) + " ('" + v->name() +
                                                             "') of node '" + node.name() + "' is not a constant");
      out[i] = RtValue::Of(std::move(t));
    }
    return out;
  }
  if (count != node.num_inputs())
    throw std::invalid_argument(std::to_string(count) + " input views for a node with " +
                                std::to_string(node.num_inputs()) + " inputs");
  for (size_t i = 0; i < count; ++i)
    if (inputs[i]) out[i] = RtValue::Of(TensorFromView(*inputs[i]));
  return out;
}

KilnStatus* NodeCompute(KilnNode* n, const KilnTensorView* const* inputs, size_t input_count, uint32_t flags,
                        KilnComputeResult** out_result) {
  return Guarded([&] {
    if (!n || !out_result) throw std::invalid_argument("node or out_result is NULL");
    *out_result = nullptr;
    const Node& node = *FromKiln(n);
    if (node.is_deleted()) throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "node '" + node.name() + "' was deleted");
    const HostServices* services = CallFrame::Current().services();
    const KernelRegistry* registry = services ? ((flags & KILN_COMPUTE_BUILTIN_ONLY) ? services->builtin_kernels
                                                                                     : services->kernels)
                                              : nullptr;
    if (registry == nullptr) throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "no kernels are available to this call");
    int64_t opset = OpsetOf(node);
    if ((flags & KILN_COMPUTE_DETERMINISTIC_ONLY) && !registry->IsDeterministic(node.domain(), node.op_type(), opset))
      throw SlotError(KILN_STATUS_UNSUPPORTED, "no deterministic kernel for " + node.op_type());
    std::vector<RtValue> ins = InputsFor(node, inputs, input_count);
    KernelCall call(node, opset, ins, node.num_outputs());
    std::string why;
    if (!registry->Compute(call, &why)) throw SlotError(KILN_STATUS_UNSUPPORTED, why);
    auto result = std::make_unique<KilnComputeResult>();
    result->outputs = std::move(call.outputs());
    result->views.resize(result->outputs.size());
    result->strings.resize(result->outputs.size());
    *out_result = result.release();
  });
}

size_t ResultOutputCount(const KilnComputeResult* r) { return r ? r->outputs.size() : 0; }

const KilnTensorView* ResultOutput(const KilnComputeResult* cr, size_t i) {
  return GuardedValue<const KilnTensorView*>(nullptr, [&]() -> const KilnTensorView* {
    auto* r = const_cast<KilnComputeResult*>(cr);
    if (!r || i >= r->outputs.size() || !r->outputs[i].is_tensor()) return nullptr;
    if (!r->views[i]) {
      const Tensor& t = *r->outputs[i].tensor;
      auto v = std::make_unique<KilnTensorView>();
      v->struct_size = sizeof(KilnTensorView);
      v->elem_type = static_cast<int32_t>(t.type());
      v->rank = static_cast<uint32_t>(t.dims().size());
      v->dims = t.dims().empty() ? nullptr : t.dims().data();
      if (t.type() == DataType::kString) {
        for (const std::string& s : t.strings()) r->strings[i].push_back({s.data(), s.size()});
        v->data = r->strings[i].empty() ? nullptr : r->strings[i].data();
        v->byte_size = r->strings[i].size() * sizeof(KilnString);
      } else {
        v->data = t.bytes().empty() ? nullptr : const_cast<std::byte*>(t.bytes().data());
        v->byte_size = t.bytes().size();
        LendView(v.get(), r->outputs[i].tensor);  // ended in ResultRelease
      }
      r->views[i] = std::move(v);
    }
    return r->views[i].get();
  });
}

void ResultRelease(KilnComputeResult* r) {
  if (r == nullptr) return;
  for (const auto& v : r->views)
    if (v) EndLend(v.get());
  delete r;
}

// ---- kernel context
const RtValue* InputOf(KilnKernelContext* c, size_t i) {
  return c && i < c->call->num_inputs() ? &c->call->input(i) : nullptr;
}

size_t KernelInputCount(KilnKernelContext* c) { return c ? c->call->num_inputs() : 0; }

int32_t KernelInputKind(KilnKernelContext* c, size_t i) {
  const RtValue* v = InputOf(c, i);
  if (!v || v->is_none()) return KILN_TYPE_KIND_NONE;
  return v->is_tensor() ? KILN_TYPE_KIND_TENSOR : KILN_TYPE_KIND_SEQUENCE;
}

const KilnTensorView* KernelInput(KilnKernelContext* c, size_t i) {
  return GuardedValue<const KilnTensorView*>(nullptr, [&]() -> const KilnTensorView* {
    const RtValue* v = InputOf(c, i);
    if (!v || !v->is_tensor()) return nullptr;
    // A weight the file holds misaligned is copied to be aligned only for a kernel that needs it so.
    return CallFrame::Current().View(v->tensor,
                                     c->any_alignment ? CallFrame::Bytes::kStored : CallFrame::Bytes::kAligned);
  });
}

size_t KernelInputSequenceLength(KilnKernelContext* c, size_t i, int32_t* out_elem_type) {
  const RtValue* v = InputOf(c, i);
  if (!v || v->kind != RtValue::Kind::kSequence) return 0;
  if (out_elem_type) *out_elem_type = static_cast<int32_t>(v->sequence_elem);
  return v->sequence.size();
}

const KilnTensorView* KernelInputSequenceElement(KilnKernelContext* c, size_t i, size_t position) {
  return GuardedValue<const KilnTensorView*>(nullptr, [&]() -> const KilnTensorView* {
    const RtValue* v = InputOf(c, i);
    if (!v || v->kind != RtValue::Kind::kSequence || position >= v->sequence.size()) return nullptr;
    return CallFrame::Current().View(v->sequence[position]);
  });
}

const KilnAttribute* KernelAttribute(KilnKernelContext* c, const char* name) {
  return c && name ? ToKiln(c->call->node().FindAttribute(name)) : nullptr;
}

size_t KernelOutputCount(KilnKernelContext* c) { return c ? c->call->num_outputs() : 0; }

KilnKernelContext::Output& UnsetOutput(KilnKernelContext* c, size_t i) {
  if (!c) throw std::invalid_argument("ctx is NULL");
  if (i >= c->outputs.size())
    throw std::out_of_range("output " + std::to_string(i) + " of a node with " + std::to_string(c->outputs.size()) +
                            " outputs");
  if (c->outputs[i].kind != KilnKernelContext::Output::Kind::kUnset)
    throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "output " + std::to_string(i) + " was already allocated");
  return c->outputs[i];
}

DataType CheckedType(int32_t elem_type) {
  if (!ValidElemType(elem_type))
    throw std::invalid_argument("element type " + std::to_string(elem_type) + " is not one Kiln knows");
  return static_cast<DataType>(elem_type);
}

KilnTensorView* WritableView(const Tensor& t, std::byte* data) {
  KilnTensorView& v = CallFrame::Current().Make<KilnTensorView>();
  v.struct_size = sizeof(KilnTensorView);
  v.elem_type = static_cast<int32_t>(t.type());
  v.rank = static_cast<uint32_t>(t.dims().size());
  v.dims = t.dims().empty() ? nullptr : t.dims().data();
  v.data = t.bytes().empty() ? nullptr : data;
  v.byte_size = t.bytes().size();
  return &v;
}

KilnStatus* KernelAllocOutput(KilnKernelContext* c, size_t i, int32_t elem_type, size_t rank, const int64_t* dims,
                              KilnTensorView** out) {
  return Guarded([&] {
    if (!out) throw std::invalid_argument("out_tensor is NULL");
    auto& o = UnsetOutput(c, i);
    DataType type = CheckedType(elem_type);
    std::vector<int64_t> shape = CheckedDims(rank, dims);
    if (type == DataType::kString) {
      int64_t count = 1;
      for (int64_t d : shape) count *= d;
      o.strings = &CallFrame::Current().NewStringFill(std::move(shape), static_cast<size_t>(count));
      *out = &o.strings->view;
    } else {
      std::byte* data = c->call->AllocateOutput(i, type, std::move(shape));
      *out = WritableView(*c->call->outputs()[i].tensor, data);
    }
    o.kind = KilnKernelContext::Output::Kind::kTensor;
  });
}

KilnStatus* KernelAllocOutputSequence(KilnKernelContext* c, size_t i, int32_t elem_type, size_t length) {
  return Guarded([&] {
    auto& o = UnsetOutput(c, i);
    CheckedType(elem_type);
    if (length > (size_t{1} << 24)) throw SlotError(KILN_STATUS_OUT_OF_MEMORY, "sequence length over the limit");
    o.elem_type = elem_type;
    o.items.assign(length, nullptr);
    o.item_strings.assign(length, nullptr);
    o.item_set.assign(length, false);
    o.kind = KilnKernelContext::Output::Kind::kSequence;
  });
}

KilnStatus* KernelAllocSequenceElement(KilnKernelContext* c, size_t i, size_t position, size_t rank,
                                       const int64_t* dims, KilnTensorView** out) {
  return Guarded([&] {
    if (!c || !out) throw std::invalid_argument("ctx or out_tensor is NULL");
    if (i >= c->outputs.size() || c->outputs[i].kind != KilnKernelContext::Output::Kind::kSequence)
      throw SlotError(KILN_STATUS_FAILED_PRECONDITION,
                      "output " + std::to_string(i) + " is not a sequence (kernel_alloc_output_sequence first)");
    auto& o = c->outputs[i];
    if (position >= o.items.size()) throw std::out_of_range("position past the sequence's length");
    if (o.item_set[position]) throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "element already allocated");
    std::vector<int64_t> shape = CheckedDims(rank, dims);
    if (o.elem_type == KILN_ELEM_STRING) {
      int64_t count = 1;
      for (int64_t d : shape) count *= d;
      o.item_strings[position] = &CallFrame::Current().NewStringFill(std::move(shape), static_cast<size_t>(count));
      *out = &o.item_strings[position]->view;
    } else {
      OutputTensor t = AllocateTensor(static_cast<DataType>(o.elem_type), std::move(shape));
      o.items[position] = t.tensor;
      *out = WritableView(*t.tensor, t.data);
    }
    o.item_set[position] = true;
  });
}

KilnStatus* KernelSetOutputNone(KilnKernelContext* c, size_t i) {
  return Guarded([&] {
    auto& o = UnsetOutput(c, i);
    RtValue none;
    none.is_optional = true;
    c->call->SetOutput(i, std::move(none));
    o.kind = KilnKernelContext::Output::Kind::kNone;
  });
}

int64_t KernelOpsetVersion(KilnKernelContext* c) { return c ? c->call->opset() : 0; }

}  // namespace

void FillKernelSlots(KilnHostApi& api) {
  api.node_compute = NodeCompute;
  api.compute_result_output_count = ResultOutputCount;
  api.compute_result_output = ResultOutput;
  api.compute_result_release = ResultRelease;
  api.kernel_input_count = KernelInputCount;
  api.kernel_input_kind = KernelInputKind;
  api.kernel_input = KernelInput;
  api.kernel_input_sequence_length = KernelInputSequenceLength;
  api.kernel_input_sequence_element = KernelInputSequenceElement;
  api.kernel_attribute = KernelAttribute;
  api.kernel_output_count = KernelOutputCount;
  api.kernel_alloc_output = KernelAllocOutput;
  api.kernel_alloc_output_sequence = KernelAllocOutputSequence;
  api.kernel_alloc_sequence_element = KernelAllocSequenceElement;
  api.kernel_set_output_none = KernelSetOutputNone;
  api.kernel_opset_version = KernelOpsetVersion;
}

}  // namespace kiln::plugin
