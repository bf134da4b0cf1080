// Host slots that change a graph: value types, new nodes and constants, rewiring, deleting, shape inference,
// and inlining a subgraph (ABI 1.1). Every change goes through the IR's own methods, which record how to undo
// themselves in the model's journal, so that a failed pass call is rolled back to the graph as it was.
// Arguments are checked before anything changes: a refused call leaves the graph untouched.
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include <onnx/defs/schema.h>

#include "compile/resource_limits.h"
#include "ir/buffer.h"
#include "ir/graph.h"
#include "ir/model.h"
#include "ir/topo_order.h"
#include "kernels/runtime_value.h"
#include "driver/rewrite_helpers.h"
#include "plugin/host_api.h"
#include "plugin/host_api_values.h"

#include "shape/shape_inference.h"
#include "support/error.h"

namespace kiln::plugin {

void InlineSubgraph(Node& node, size_t index);  // host_api_inline.cc

namespace {

Graph& LiveGraph(KilnGraph* g) {
  if (!g) throw std::invalid_argument("graph is NULL");
  return *FromKiln(g);
}

Node& LiveNode(KilnNode* n) {
  if (!n) throw std::invalid_argument("node is NULL");
  Node& node = *FromKiln(n);
  if (node.is_deleted()) throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "node '" + node.name() + "' was deleted");
  return node;
}

Value& LiveValue(KilnValue* v, const char* what) {
  if (!v) throw std::invalid_argument(std::string(what) + " is NULL");
  Value& value = *FromKiln(v);
  if (value.is_deleted()) throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "value '" + value.name() + "' was deleted");
  return value;
}

void CheckVisible(const Graph& g, const Value& v) {
  if (!g.IsVisible(&v))
    throw std::invalid_argument("value '" + v.name() + "' is not visible in graph '" + g.name() + "'");
}

// A custom domain a new node uses is imported at the version its schema registered (1 when none did). In a
// function body the function imports the node's domain too, at the model's version.
void ImportDomain(Graph& g, const std::string& domain) {
  Model& m = *g.model();
  if (!domain.empty() && domain != "ai.onnx" && !m.OpsetVersion(domain)) {
    int64_t version = 1;
    const auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
    if (auto it = ranges.find(domain); it != ranges.end()) version = it->second.second;
    m.EnsureOpset(domain, version);
  }
  if (Function* f = g.root()->function()) f->EnsureOpset(domain, m.OpsetVersion(domain).value_or(1));
}

KilnStatus* SetTensorType(KilnValue* v, int32_t elem_type, int64_t rank, const int64_t* dims,
                          const char* const* symbols) {
  return Guarded([&] { LiveValue(v, "value").SetType(TensorTypeFrom(elem_type, rank, dims, symbols)); });
}

KilnStatus* CreateNode(KilnGraph* g, const char* op_type, const char* domain, const char* name,
                       KilnValue* const* inputs, size_t input_count, size_t output_count, KilnNode** out_node) {
  return Guarded([&] {
    Graph& graph = LiveGraph(g);
    if (!out_node) throw std::invalid_argument("out_node is NULL");
    if (!op_type || !*op_type) throw std::invalid_argument("op_type is NULL or empty");
    if (input_count && !inputs) throw std::invalid_argument("inputs is NULL");
    if (output_count > 65536 || input_count > 65536) throw std::invalid_argument("too many inputs or outputs");
    std::vector<Value*> ins(input_count, nullptr);
    for (size_t i = 0; i < input_count; ++i) {
      if (!inputs[i]) continue;
      ins[i] = &LiveValue(inputs[i], "an input");
      CheckVisible(graph, *ins[i]);
    }
    std::string dom = domain ? domain : "";
    ImportDomain(graph, dom);
    *out_node = ToKiln(graph.AddNode(op_type, std::move(ins), output_count, name ? name : "", dom));
  });
}

KilnStatus* CreateConstant(KilnGraph* g, const char* name, int32_t elem_type, size_t rank, const int64_t* dims,
                           KilnValue** out_value, KilnTensorView** out_data) {
  return Guarded([&] {
    Graph& graph = LiveGraph(g);
    if (!out_value || !out_data) throw std::invalid_argument("out_value or out_data is NULL");
    if (!ValidElemType(elem_type))
      throw std::invalid_argument("element type " + std::to_string(elem_type) + " is not one Kiln knows");
    std::vector<int64_t> shape = CheckedDims(rank, dims);
    // Counted against the compile's limits before anything is allocated (a string element counts as its handle).
    uint64_t count = 1;
    for (int64_t d : shape)
      if (__builtin_mul_overflow(count, static_cast<uint64_t>(d), &count)) throw std::length_error("dims overflow");
    uint64_t element = elem_type == KILN_ELEM_STRING ? sizeof(KilnString) : kiln_elem_type_size(elem_type);
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(count, element, &bytes)) throw std::length_error("dims overflow");
    ChargeCreatedTensor(graph.model(), bytes);
    CallFrame& frame = CallFrame::Current();
    OutputTensor o = AllocateTensor(static_cast<DataType>(elem_type), shape);
    Tensor t = *o.tensor;
    t.set_name(name ? name : "");
    Value* v = graph.AddInitializer(std::move(t));
    if (elem_type == KILN_ELEM_STRING) {
      StringTensorFill& fill = frame.NewStringFill(shape, static_cast<size_t>(v->initializer()->num_elements()));
      frame.DeferStringConstant(v, &fill);
      *out_data = &fill.view;
    } else {
      KilnTensorView& view = frame.Make<KilnTensorView>();
      const Tensor& held = *v->initializer();
      view.struct_size = sizeof(KilnTensorView);
      view.elem_type = elem_type;
      view.rank = static_cast<uint32_t>(held.dims().size());
      view.dims = held.dims().empty() ? nullptr : held.dims().data();
      view.data = held.bytes().empty() ? nullptr : o.data;
      view.byte_size = held.bytes().size();
      *out_data = &view;
    }
    *out_value = ToKiln(v);
  });
}

// ---- 1.10
// The sources' tensors (their bytes kept alive and unchanged: tensors are immutable) and the views compute reads.
struct ComputeSources {
  std::vector<std::shared_ptr<const Tensor>> tensors;
  std::vector<KilnTensorView> views;
  std::vector<const KilnTensorView*> pointers;
};

KilnStatus* CreateComputedConstant(KilnGraph* g, const char* name, int32_t elem_type, size_t rank,
                                   const int64_t* dims, KilnValue* const* sources, size_t source_count,
                                   KilnComputeBytesFn compute, void* state, KilnDestroyFn release,
                                   KilnValue** out_value) {
  // The state is the host's from the call on: released with the computation, or at once when the call fails.
  std::shared_ptr<void> held(state, [release](void* st) {
    if (release) release(st);
  });
  return Guarded([&] {
    Graph& graph = LiveGraph(g);
    if (!out_value || !compute) throw std::invalid_argument("out_value or compute is NULL");
    if (source_count != 0 && !sources) throw std::invalid_argument("sources is NULL");
    if (!ValidElemType(elem_type) || elem_type == KILN_ELEM_STRING)
      throw std::invalid_argument("element type " + std::to_string(elem_type) +
                                  " is not one a computed constant can hold (any numeric type, not STRING)");
    std::vector<int64_t> shape = CheckedDims(rank, dims);
    uint64_t count = 1, bytes = 0;
    for (int64_t d : shape)
      if (__builtin_mul_overflow(count, static_cast<uint64_t>(d), &count)) throw std::length_error("dims overflow");
    const size_t element = kiln_elem_type_size(elem_type);
    if (__builtin_mul_overflow(count, element, &bytes)) throw std::length_error("dims overflow");
    auto src = std::make_shared<ComputeSources>();
    for (size_t i = 0; i < source_count; ++i) {
      Value& v = LiveValue(sources[i], "a source");
      CheckVisible(graph, v);
      std::shared_ptr<const Tensor> t = ConstantTensorOf(v);
      if (!t || t->type() == DataType::kString)
        throw std::invalid_argument("source " + std::to_string(i) + " ('" + v.name() +
                                    "') is not a constant of numbers");
      src->tensors.push_back(std::move(t));
    }
    src->views.resize(source_count);
    for (size_t i = 0; i < source_count; ++i) {
      const Tensor& t = *src->tensors[i];
      std::span<const std::byte> stored = t.raw_bytes();  // where they lie, as value_constant_bytes shows them
      const int64_t* dims = t.dims().empty() ? nullptr : t.dims().data();
      src->views[i] = KilnTensorView{sizeof(KilnTensorView), static_cast<int32_t>(t.type()),
                                     static_cast<uint32_t>(t.dims().size()), dims,
                                     stored.empty() ? nullptr : const_cast<std::byte*>(stored.data()), stored.size()};
      src->pointers.push_back(&src->views[i]);
    }
    ChargeCreatedTensor(graph.model(), bytes);
    const std::string label = name && *name ? name : "(unnamed)";
    const HostServices* services = CallFrame::Current().services();
    Buffer::ComputeFn fn = [src, compute, held, services, label](size_t offset, std::span<std::byte> out) {
      KilnStatus* st = CallPlugin(services, "a computed constant's compute", [&] {
        return compute(held.get(), src->pointers.data(), src->pointers.size(), offset, out.size(), out.data());
      });
      if (st) throw PluginError("computed constant '" + label + "': making bytes " + std::to_string(offset) + ".." +
                                std::to_string(offset + out.size()) + " failed: " + TakeStatusText(st));
    };
    const void* owner = services ? static_cast<const void*>(services->plugins) : nullptr;  // settles them on unload
    Tensor t(static_cast<DataType>(elem_type), std::move(shape),
             Buffer::Computed(bytes, element, std::move(fn), owner));
    t.set_name(name ? name : "");
    *out_value = ToKiln(graph.AddInitializer(std::move(t)));
  });
}

KilnStatus* CreateConstantFromView(KilnGraph* g, const char* name, const KilnTensorView* tensor,
                                   KilnValue** out_value) {
  return Guarded([&] {
    Graph& graph = LiveGraph(g);
    if (!tensor || !out_value) throw std::invalid_argument("tensor or out_value is NULL");
    ChargeCreatedTensor(graph.model(), tensor->byte_size);
    Tensor t = TensorFromView(*tensor);
    t.set_name(name ? name : "");
    *out_value = ToKiln(graph.AddInitializer(std::move(t)));
  });
}

KilnStatus* TensorSetString(KilnTensorView* tensor, size_t index, const char* data, size_t size) {
  return Guarded([&] {
    StringTensorFill* fill = CallFrame::FindStringFill(tensor);
    if (!fill) throw std::invalid_argument("the tensor is not a STRING tensor this call is filling");
    if (index >= fill->strings.size())
      throw std::out_of_range("index " + std::to_string(index) + " is past the tensor's " +
                              std::to_string(fill->strings.size()) + " elements");
    if (!data && size) throw std::invalid_argument("data is NULL");
    fill->strings[index].assign(data ? data : "", size);
    fill->views[index] = KilnString{fill->strings[index].data(), fill->strings[index].size()};
  });
}

KilnStatus* NodeSetInput(KilnNode* n, size_t index, KilnValue* v) {
  return Guarded([&] {
    Node& node = LiveNode(n);
    if (index > node.num_inputs())
      throw std::out_of_range("input index " + std::to_string(index) + " is past the node's " +
                              std::to_string(node.num_inputs()) + " inputs");
    Value* value = nullptr;
    if (v) {
      value = &LiveValue(v, "value");
      CheckVisible(*node.graph(), *value);
    }
    if (Value* old = node.input(index); old && old != value) CallFrame::Current().NoteReleased(old);
    node.SetInput(index, value);
  });
}

// A graph output named by `old` moves to `replacement`: refused when that would make one value two outputs, or
// an input an output.
void CheckOutputMove(const Value& old, const Value& replacement) {
  if (!old.is_graph_output()) return;
  if (replacement.is_graph_input() || replacement.is_graph_output())
    throw SlotError(KILN_STATUS_FAILED_PRECONDITION,
                    "value '" + old.name() + "' is a graph output and '" + replacement.name() + "' is already a graph " +
                        (replacement.is_graph_input() ? "input" : "output"));
}

KilnStatus* ReplaceAllUses(KilnValue* old_value, KilnValue* new_value) {
  return Guarded([&] {
    Value& from = LiveValue(old_value, "old_value");
    Value& to = LiveValue(new_value, "new_value");
    if (&from == &to) return;
    CheckVisible(*from.graph(), to);
    CheckOutputMove(from, to);
    // A graph output keeps its name (the ABI promises it). When the replacement is a constant of the same graph
    // that is no graph input or output, `from` itself becomes that constant: it keeps its name, its consumers and
    // its place among the outputs; `to`'s own uses move onto it and `to`, left unused, goes when the pass ends.
    Graph& g = *from.graph();
    if (from.is_graph_output() && from.producer() && to.initializer() && !to.producer() && to.graph() == &g &&
        !to.is_graph_input() && !to.is_graph_output()) {
      g.ConvertToInitializer(&from, to.initializer());
      if (!to.uses().empty()) g.ReplaceAllUsesWith(&to, &from);
      return;
    }
    // Otherwise the replacement takes the output's name when it can (Graph::ReplaceValue); a graph output moved
    // onto an outer value or another graph's takes that value's name.
    g.ReplaceValue(&from, &to);
  });
}

KilnStatus* NodeDelete(KilnNode* n) {
  return Guarded([&] {
    Node& node = LiveNode(n);
    for (Value* out : node.outputs())
      if (out && out->has_uses())
        throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "node '" + node.name() + "' cannot be deleted: its output '" +
                                                             out->name() + "' is still used");
    CallFrame& frame = CallFrame::Current();
    for (Value* in : node.inputs())
      if (in) frame.NoteReleased(in);
    node.graph()->RemoveNode(&node);
  });
}

KilnStatus* NodeIsolateAndDelete(KilnNode* n, const int64_t* io_map, size_t map_size) {
  return Guarded([&] {
    Node& node = LiveNode(n);
    if (map_size != node.num_outputs())
      throw std::invalid_argument("io_map has " + std::to_string(map_size) + " entries for " +
                                  std::to_string(node.num_outputs()) + " outputs");
    if (map_size && !io_map) throw std::invalid_argument("io_map is NULL");
    // Check every output first, so that a refusal changes nothing.
    for (size_t k = 0; k < map_size; ++k) {
      Value* out = node.output(k);
      if (!out || !out->has_uses()) continue;
      if (io_map[k] < 0)
        throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "output '" + out->name() + "' of node '" + node.name() +
                                                             "' is used but io_map maps it to no input");
      Value* in = node.input(static_cast<size_t>(io_map[k]));
      if (static_cast<size_t>(io_map[k]) >= node.num_inputs() || !in)
        throw std::invalid_argument("io_map[" + std::to_string(k) + "] names no present input");
      CheckOutputMove(*out, *in);
    }
    std::vector<int> map(io_map, io_map + map_size);
    CallFrame& frame = CallFrame::Current();
    for (Value* in : IsolateAndRemoveNode(node, map))
      if (in) frame.NoteReleased(in);  // constants left unused go when the pass call ends
  });
}

int NodeIsDeleted(KilnNode* n) { return n && FromKiln(n)->is_deleted() ? 1 : 0; }

KilnStatus* InferShapesSlot(KilnGraph* g, KilnNode* n) {
  return Guarded([&] {
    Graph& graph = LiveGraph(g);
    if (n) LiveNode(n);
    InferShapes(*graph.model());
  });
}

KilnStatus* NodeInlineSubgraph(KilnNode* n, size_t index) {
  return Guarded([&] { InlineSubgraph(LiveNode(n), index); });
}

}  // namespace

// A node as messages name it: its name, or its op type and first output when it has none.
std::string NodeLabel(const Node& n) {
  if (!n.name().empty()) return "node '" + n.name() + "'";
  const Value* out = n.output(0);
  return n.op_type() + " node" + (out ? " writing '" + out->name() + "'" : std::string());
}

// ABI 1.5: a schedule chosen by a pass. Checked first (every node once, producers first), then set.
KilnStatus* GraphSetNodeOrder(KilnGraph* g, KilnNode* const* nodes, size_t count) {
  return Guarded([&] {
    Graph& graph = LiveGraph(g);
    if (!nodes && count) throw std::invalid_argument("nodes is NULL");
    if (count != graph.num_nodes())
      throw std::invalid_argument("the order lists " + std::to_string(count) + " nodes, graph '" + graph.name() +
                                  "' has " + std::to_string(graph.num_nodes()));
    std::unordered_map<const Node*, size_t> position;
    std::vector<Node*> order;
    order.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      Node& n = LiveNode(nodes[i]);
      if (n.graph() != &graph)
        throw std::invalid_argument(NodeLabel(n) + " is not a node of graph '" + graph.name() + "'");
      if (!position.emplace(&n, i).second) throw std::invalid_argument(NodeLabel(n) + " is listed twice");
      order.push_back(&n);
    }
    for (Node* n : order)
      ForEachDependent(graph, n, [&](Node* reader) {
        if (position.at(reader) < position.at(n))
          throw std::invalid_argument(NodeLabel(*reader) + " comes before " + NodeLabel(*n) +
                                      ", whose output it reads");
      });
    graph.SetNodeOrder(order);
  });
}

void FillMutationSlots(KilnHostApi& api) {
  api.graph_set_node_order = GraphSetNodeOrder;
  api.value_set_tensor_type = SetTensorType;
  api.graph_create_node = CreateNode;
  api.graph_create_constant = CreateConstant;
  api.graph_create_computed_constant = CreateComputedConstant;
  api.graph_create_constant_from_view = CreateConstantFromView;
  api.tensor_set_string = TensorSetString;
  api.node_set_input = NodeSetInput;
  api.value_replace_all_uses = ReplaceAllUses;
  api.node_delete = NodeDelete;
  api.node_isolate_and_delete = NodeIsolateAndDelete;
  api.node_is_deleted = NodeIsDeleted;
  api.infer_shapes = InferShapesSlot;
  api.node_inline_subgraph = NodeInlineSubgraph;
}

}  // namespace kiln::plugin
