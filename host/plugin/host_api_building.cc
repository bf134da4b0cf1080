// ABI 1.2 slots for building graphs: initializers, graph inputs and outputs, removing unused values, renaming values
// and nodes, and the attribute kinds 1.1 could not set or read (GRAPH, GRAPHS, TENSORS, references in function
// bodies). Every change goes through the IR, so the journal can undo it; arguments are checked first.
#include <stdexcept>

#include "ir/graph_copy.h"
#include "ir/model.h"
#include "plugin/host_api.h"
#include "plugin/host_api_values.h"

namespace kiln::plugin {
namespace {

Graph& LiveGraph(KilnGraph* g) {
  if (!g) throw std::invalid_argument("graph is NULL");
  return *FromKiln(g);
}
Value& LiveValue(KilnValue* v) {
  if (!v) throw std::invalid_argument("value is NULL");
  Value& value = *FromKiln(v);
  if (value.is_deleted()) throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "value '" + value.name() + "' was deleted");
  return value;
}
Node& LiveNode(KilnNode* n) {
  if (!n) throw std::invalid_argument("node is NULL");
  Node& node = *FromKiln(n);
  if (node.is_deleted()) throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "node '" + node.name() + "' was deleted");
  return node;
}
void CheckName(const char* name, const char* what) {
  if (!name || !*name) throw std::invalid_argument(std::string(what) + " is NULL or empty");
}
// The value name is free in the graph's naming scope (the main graph tree, or a function body's).
void CheckFreeName(const Graph& g, const std::string& name) {
  if (g.names().Contains(name))
    throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "the name '" + name + "' is taken");
}

// ---- initializers, inputs, outputs
size_t InitializerCount(KilnGraph* g) { return g ? FromKiln(g)->initializers().size() : 0; }
KilnValue* InitializerAt(KilnGraph* g, size_t i) {
  return g && i < FromKiln(g)->initializers().size() ? ToKiln(FromKiln(g)->initializers()[i]) : nullptr;
}

KilnStatus* ValueRemove(KilnValue* v) {
  return Guarded([&] {
    Value& value = LiveValue(v);
    if (value.producer() != nullptr)
      throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "value '" + value.name() + "' is a node's output");
    if (value.has_uses())
      throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "value '" + value.name() + "' is still read or is a graph output");
    Graph& g = *value.graph();
    for (size_t i = g.inputs().size(); i-- > 0;)
      if (g.inputs()[i] == &value) g.RemoveInput(i);
    g.RemoveValue(&value);
  });
}

KilnStatus* AddInput(KilnGraph* g, const char* name, int32_t elem_type, int64_t rank, const int64_t* dims,
                     const char* const* symbols, KilnValue** out) {
  return Guarded([&] {
    Graph& graph = LiveGraph(g);
    CheckName(name, "name");
    if (!out) throw std::invalid_argument("out_value is NULL");
    CheckFreeName(graph, name);
    Type type = elem_type == KILN_ELEM_UNDEFINED && rank < 0 ? Type() : TensorTypeFrom(elem_type, rank, dims, symbols);
    *out = ToKiln(graph.AddInput(name, std::move(type)));
  });
}

KilnStatus* AddOutput(KilnGraph* g, KilnValue* v) {
  return Guarded([&] {
    Graph& graph = LiveGraph(g);
    Value& value = LiveValue(v);
    if (!graph.IsVisible(&value))
      throw std::invalid_argument("value '" + value.name() + "' is not visible in graph '" + graph.name() + "'");
    graph.AppendOutput(&value);
  });
}

KilnStatus* SetOutput(KilnGraph* g, size_t i, KilnValue* v) {
  return Guarded([&] {
    Graph& graph = LiveGraph(g);
    Value& value = LiveValue(v);
    if (i >= graph.outputs().size()) throw std::out_of_range("graph '" + graph.name() + "' has no output " + std::to_string(i));
    if (!graph.IsVisible(&value))
      throw std::invalid_argument("value '" + value.name() + "' is not visible in graph '" + graph.name() + "'");
    graph.SetOutput(i, &value);
  });
}

KilnStatus* RemoveOutput(KilnGraph* g, size_t i) {
  return Guarded([&] {
    Graph& graph = LiveGraph(g);
    if (i >= graph.outputs().size()) throw std::out_of_range("graph '" + graph.name() + "' has no output " + std::to_string(i));
    graph.RemoveOutput(i);
  });
}

KilnStatus* ValueSetName(KilnValue* v, const char* name) {
  return Guarded([&] {
    Value& value = LiveValue(v);
    CheckName(name, "name");
    if (value.name() == name) return;
    CheckFreeName(*value.graph(), name);
    value.graph()->RenameValue(&value, name);
  });
}

KilnStatus* NodeSetName(KilnNode* n, const char* name) {
  return Guarded([&] {
    if (!name) throw std::invalid_argument("name is NULL");
    LiveNode(n).SetName(name);
  });
}

// ---- attributes
KilnStatus* SetAttrGraph(KilnNode* n, const char* name, KilnGraph* source, KilnGraph** out_graph) {
  return Guarded([&] {
    Node& node = LiveNode(n);
    CheckName(name, "attribute name");
    Attribute a;
    a.name = name;
    a.kind = AttrKind::kGraph;
    a.has_g = true;
    Graph* owner_graph = node.graph();
    a.graphs.push_back(source ? CopyGraph(*FromKiln(source), owner_graph, &node, {})
                              : std::make_unique<Graph>(owner_graph->model(), owner_graph, &node));
    Graph* made = a.graphs.front().get();
    node.SetAttribute(std::move(a));
    if (out_graph) *out_graph = ToKiln(made);
  });
}

KilnStatus* SetAttrGraphs(KilnNode* n, const char* name, KilnGraph* const* sources, size_t count) {
  return Guarded([&] {
    Node& node = LiveNode(n);
    CheckName(name, "attribute name");
    if (count && !sources) throw std::invalid_argument("sources is NULL");
    Attribute a;
    a.name = name;
    a.kind = AttrKind::kGraphs;
    for (size_t i = 0; i < count; ++i) {
      if (!sources[i]) throw std::invalid_argument("source " + std::to_string(i) + " is NULL");
      a.graphs.push_back(CopyGraph(*FromKiln(sources[i]), node.graph(), &node, {}));
    }
    node.SetAttribute(std::move(a));
  });
}

KilnStatus* SetAttrTensors(KilnNode* n, const char* name, const KilnTensorView* const* tensors, size_t count) {
  return Guarded([&] {
    Node& node = LiveNode(n);
    CheckName(name, "attribute name");
    if (count && !tensors) throw std::invalid_argument("tensors is NULL");
    Attribute a;
    a.name = name;
    a.kind = AttrKind::kTensors;
    for (size_t i = 0; i < count; ++i) {
      if (!tensors[i]) throw std::invalid_argument("tensor " + std::to_string(i) + " is NULL");
      a.tensors.push_back(TensorFromView(*tensors[i]));
    }
    node.SetAttribute(std::move(a));
  });
}

KilnStatus* SetAttrRef(KilnNode* n, const char* name, int32_t attr_type, const char* ref) {
  return Guarded([&] {
    Node& node = LiveNode(n);
    CheckName(name, "attribute name");
    CheckName(ref, "ref_attr_name");
    if (attr_type <= KILN_ATTR_UNDEFINED || attr_type > KILN_ATTR_TYPE_PROTOS)
      throw std::invalid_argument("attribute type " + std::to_string(attr_type) + " is not one of KILN_ATTR_*");
    if (node.graph()->root()->function() == nullptr)
      throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "node '" + node.name() +
                                                           "' is not in a function body: only those refer to a call's "
                                                           "attributes");
    Attribute a;
    a.name = name;
    a.kind = static_cast<AttrKind>(attr_type);
    a.ref_attr_name = ref;
    node.SetAttribute(std::move(a));
  });
}

size_t AttrGraphCount(const KilnAttribute* a) { return a ? FromKiln(a)->graphs.size() : 0; }
KilnGraph* AttrGraphAt(const KilnAttribute* a, size_t i) {
  return a && i < FromKiln(a)->graphs.size() ? ToKiln(FromKiln(a)->graphs[i].get()) : nullptr;
}
size_t AttrTensorCount(const KilnAttribute* a) {
  if (!a) return 0;
  const Attribute& attr = *FromKiln(a);
  return attr.kind == AttrKind::kTensor ? (attr.t ? 1 : 0) : attr.tensors.size();
}
const KilnTensorView* AttrTensorAt(const KilnAttribute* a, size_t i) {
  return GuardedValue<const KilnTensorView*>(nullptr, [&]() -> const KilnTensorView* {
    if (!a) return nullptr;
    const Attribute& attr = *FromKiln(a);
    if (attr.kind == AttrKind::kTensor) return i == 0 && attr.t ? CallFrame::Current().View(*attr.t) : nullptr;
    return i < attr.tensors.size() ? CallFrame::Current().View(attr.tensors[i]) : nullptr;
  });
}
const char* AttrRefName(const KilnAttribute* a) {
  return a && !FromKiln(a)->ref_attr_name.empty() ? FromKiln(a)->ref_attr_name.c_str() : nullptr;
}

}  // namespace

void FillBuildingSlots(KilnHostApi& api) {
  api.graph_initializer_count = InitializerCount;
  api.graph_initializer_at = InitializerAt;
  api.value_remove = ValueRemove;
  api.graph_add_input = AddInput;
  api.graph_add_output = AddOutput;
  api.graph_set_output = SetOutput;
  api.graph_remove_output = RemoveOutput;
  api.value_set_name = ValueSetName;
  api.node_set_name = NodeSetName;
  api.node_set_attr_graph = SetAttrGraph;
  api.node_set_attr_graphs = SetAttrGraphs;
  api.node_set_attr_tensors = SetAttrTensors;
  api.node_set_attr_ref = SetAttrRef;
  api.attr_graph_count = AttrGraphCount;
  api.attr_graph_at = AttrGraphAt;
  api.attr_tensor_count = AttrTensorCount;
  api.attr_tensor_at = AttrTensorAt;
  api.attr_ref_name = AttrRefName;
}

}  // namespace kiln::plugin
