// kiln_plugin_model.hpp - part of the C++20 wrapper over kiln_plugin.h (include kiln_plugin.hpp, not this):
// ABI 1.2's handles on the whole model (functions, outlining, opsets, analyses) and the out-of-line members of
// the graph handles that need them.
#pragma once

#include <kiln/kiln_plugin_handles.hpp>

namespace kiln::sdk {

// ---------------------------------------------------------------------------------------------------------------
// ABI 1.2: the model, functions, outlining, analyses
// ---------------------------------------------------------------------------------------------------------------

// A model-local function.
class Function {
 public:
  Function() = default;
  explicit Function(KilnFunction* f) : f_(f) {}
  explicit operator bool() const { return f_ != nullptr; }
  KilnFunction* raw() const { return f_; }
  friend bool operator==(const Function&, const Function&) = default;
  std::string_view Name() const { return detail::OrEmpty(Host().function_name(f_)); }
  std::string_view Domain() const { return detail::OrEmpty(Host().function_domain(f_)); }
  Graph Body() const { return Graph(Host().function_body(f_)); }
  std::vector<std::string_view> AttributeNames() const {
    std::vector<std::string_view> out(Host().function_attribute_count(f_));
    for (size_t i = 0; i < out.size(); ++i) out[i] = detail::OrEmpty(Host().function_attribute_name(f_, i));
    return out;
  }
  size_t CallCount() const { return Host().function_call_count(f_); }
  void Remove() const { Check(Host().function_remove(f_)); }

 private:
  KilnFunction* f_ = nullptr;
};

// A new function's signature (Model::CreateFunction).
struct FunctionSpec {
  std::string domain;
  std::string name;
  std::vector<std::string> inputs;
  std::vector<std::string> attributes;
  std::string doc;
};

// How Graph::Outline groups nodes (KilnOutlineInfo).
struct OutlineSpec {
  std::string domain = "kiln.fused";
  std::string name;
  std::vector<Value> outputs;  // empty: every value the group computes that is read outside it
  uint32_t flags = 0;          // KILN_OUTLINE_*
  uint64_t embed_constant_max_bytes = 0;
  std::string call_name;
};

struct Outlined {
  Node call;
  Function function;
};

class Model {
 public:
  Model() = default;
  explicit Model(KilnModel* m) : m_(m) {}
  explicit operator bool() const { return m_ != nullptr; }
  KilnModel* raw() const { return m_; }
  Graph MainGraph() const { return Graph(Host().model_graph(m_)); }
  int64_t IrVersion() const { return Host().model_ir_version(m_); }
  std::vector<std::pair<std::string_view, int64_t>> Opsets() const {
    std::vector<std::pair<std::string_view, int64_t>> out(Host().model_opset_count(m_));
    for (size_t i = 0; i < out.size(); ++i) out[i].first = detail::OrEmpty(Host().model_opset_at(m_, i, &out[i].second));
    return out;
  }
  void EnsureOpset(std::string_view domain, int64_t version) const {
    Check(Host().model_ensure_opset(m_, std::string(domain).c_str(), version));
  }
  std::vector<std::pair<std::string_view, std::string_view>> Metadata() const {
    std::vector<std::pair<std::string_view, std::string_view>> out(Host().model_metadata_count(m_));
    for (size_t i = 0; i < out.size(); ++i) {
      const char* value = nullptr;
      out[i].first = detail::OrEmpty(Host().model_metadata_at(m_, i, &value));
      out[i].second = detail::OrEmpty(value);
    }
    return out;
  }
  void SetMetadata(std::string_view key, const std::optional<std::string>& value) const {
    Check(Host().model_set_metadata(m_, std::string(key).c_str(), value ? value->c_str() : nullptr));
  }
  std::vector<Function> Functions() const {
    std::vector<Function> out(Host().model_function_count(m_));
    for (size_t i = 0; i < out.size(); ++i) out[i] = Function(Host().model_function_at(m_, i));
    return out;
  }
  Function FindFunction(std::string_view domain, std::string_view name) const {
    return Function(Host().model_find_function(m_, std::string(domain).c_str(), std::string(name).c_str()));
  }
  Function CreateFunction(const FunctionSpec& spec) const {
    std::vector<const char*> inputs, attributes;
    for (const std::string& s : spec.inputs) inputs.push_back(s.c_str());
    for (const std::string& s : spec.attributes) attributes.push_back(s.c_str());
    KilnFunctionInfo info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    info.domain = spec.domain.c_str();
    info.name = spec.name.c_str();
    info.input_names = inputs.data();
    info.input_count = inputs.size();
    info.attribute_names = attributes.data();
    info.attribute_count = attributes.size();
    info.doc = spec.doc.empty() ? nullptr : spec.doc.c_str();
    KilnFunction* f = nullptr;
    Check(Host().model_create_function(m_, &info, &f));
    return Function(f);
  }
  Node FindNode(uint64_t id) const { return Node(Host().model_find_node(m_, id)); }

 private:
  KilnModel* m_ = nullptr;
};

// Outlines `nodes` of graph into a function and a call (graph_outline); throws Error with the host's reason.
inline Outlined Outline(Graph graph, const std::vector<Node>& nodes, const OutlineSpec& spec) {
  KILN_SDK_REQUIRE_SLOT(graph_outline);
  std::vector<KilnNode*> raw;
  for (const Node& n : nodes) raw.push_back(n.raw());
  std::vector<KilnValue*> outs;
  for (const Value& v : spec.outputs) outs.push_back(v.raw());
  KilnOutlineInfo info;
  std::memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.domain = spec.domain.c_str();
  info.name = spec.name.c_str();
  info.outputs = outs.empty() ? nullptr : outs.data();
  info.output_count = outs.size();
  info.flags = spec.flags;
  info.embed_constant_max_bytes = spec.embed_constant_max_bytes;
  info.call_name = spec.call_name.empty() ? nullptr : spec.call_name.c_str();
  KilnNode* call = nullptr;
  KilnFunction* function = nullptr;
  Check(Host().graph_outline(graph.raw(), raw.data(), raw.size(), &info, &call, &function));
  return {Node(call), Function(function)};
}

// Whether the nodes (of one graph) are convex; when not, *outside and *inside (if not null) get a witness.
inline bool AreConvex(const std::vector<Node>& nodes, Node* outside = nullptr, Node* inside = nullptr) {
  KILN_SDK_REQUIRE_SLOT(nodes_are_convex);
  std::vector<KilnNode*> raw;
  for (const Node& n : nodes) raw.push_back(n.raw());
  KilnNode *o = nullptr, *i = nullptr;
  bool convex = Host().nodes_are_convex(raw.data(), raw.size(), &o, &i) != 0;
  if (outside) *outside = Node(o);
  if (inside) *inside = Node(i);
  return convex;
}

// A fusion rule pack some loaded plugin registered.
struct RegisteredRulePack {
  std::string_view name, yaml, source_name;
};
inline std::vector<RegisteredRulePack> RegisteredFusionRulePacks() {
  KILN_SDK_REQUIRE_SLOT(fusion_rule_pack_at);
  std::vector<RegisteredRulePack> out(Host().fusion_rule_pack_count());
  for (size_t i = 0; i < out.size(); ++i) {
    const char *yaml = nullptr, *source = nullptr;
    out[i].name = detail::OrEmpty(Host().fusion_rule_pack_at(i, &yaml, &source));
    out[i].yaml = detail::OrEmpty(yaml);
    out[i].source_name = detail::OrEmpty(source);
  }
  return out;
}

namespace detail {
template <class GetCount, class GetAt>
std::vector<std::pair<std::string, std::string>> ReadAnnotations(GetCount count, GetAt at) {
  std::vector<std::pair<std::string, std::string>> out(count());
  for (size_t i = 0; i < out.size(); ++i) {
    const char* value = nullptr;
    out[i].first = OrEmpty(at(i, &value));
    out[i].second = OrEmpty(value);
  }
  return out;
}
inline std::optional<std::string> OptionalString(const char* s) {
  return s ? std::optional<std::string>(s) : std::nullopt;
}
}  // namespace detail

inline std::vector<Graph> Attribute::Graphs() const {
  KILN_SDK_REQUIRE_SLOT(attr_graph_at);
  std::vector<Graph> out(Host().attr_graph_count(a_));
  for (size_t i = 0; i < out.size(); ++i) out[i] = Graph(Host().attr_graph_at(a_, i));
  return out;
}
inline std::vector<TensorView> Attribute::Tensors() const {
  KILN_SDK_REQUIRE_SLOT(attr_tensor_at);
  std::vector<TensorView> out(Host().attr_tensor_count(a_));
  for (size_t i = 0; i < out.size(); ++i) out[i] = TensorView(Host().attr_tensor_at(a_, i));
  return out;
}
inline std::string_view Attribute::RefName() const {
  KILN_SDK_REQUIRE_SLOT(attr_ref_name);
  return detail::OrEmpty(Host().attr_ref_name(a_));
}

inline void Value::SetName(std::string_view name) const {
  KILN_SDK_REQUIRE_SLOT(value_set_name);
  Check(Host().value_set_name(v_, std::string(name).c_str()));
}
inline void Value::Remove() const {
  KILN_SDK_REQUIRE_SLOT(value_remove);
  Check(Host().value_remove(v_));
}
inline std::optional<std::string> Value::Annotation(std::string_view key) const {
  KILN_SDK_REQUIRE_SLOT(value_annotation);
  return detail::OptionalString(Host().value_annotation(v_, std::string(key).c_str()));
}
inline void Value::SetAnnotation(std::string_view key, const std::optional<std::string>& value) const {
  KILN_SDK_REQUIRE_SLOT(value_set_annotation);
  Check(Host().value_set_annotation(v_, std::string(key).c_str(), value ? value->c_str() : nullptr));
}
inline std::vector<std::pair<std::string, std::string>> Value::Annotations() const {
  KILN_SDK_REQUIRE_SLOT(value_annotation_at);
  return detail::ReadAnnotations([&] { return Host().value_annotation_count(v_); },
                                 [&](size_t i, const char** v) { return Host().value_annotation_at(v_, i, v); });
}

inline uint64_t Node::Id() const {
  KILN_SDK_REQUIRE_SLOT(node_id);
  return Host().node_id(n_);
}
inline void Node::SetName(std::string_view name) const {
  KILN_SDK_REQUIRE_SLOT(node_set_name);
  Check(Host().node_set_name(n_, std::string(name).c_str()));
}
inline std::optional<std::string> Node::Annotation(std::string_view key) const {
  KILN_SDK_REQUIRE_SLOT(node_annotation);
  return detail::OptionalString(Host().node_annotation(n_, std::string(key).c_str()));
}
inline void Node::SetAnnotation(std::string_view key, const std::optional<std::string>& value) const {
  KILN_SDK_REQUIRE_SLOT(node_set_annotation);
  Check(Host().node_set_annotation(n_, std::string(key).c_str(), value ? value->c_str() : nullptr));
}
inline std::vector<std::pair<std::string, std::string>> Node::Annotations() const {
  KILN_SDK_REQUIRE_SLOT(node_annotation_at);
  return detail::ReadAnnotations([&] { return Host().node_annotation_count(n_); },
                                 [&](size_t i, const char** v) { return Host().node_annotation_at(n_, i, v); });
}
inline Function Node::CalledFunction() const {
  KILN_SDK_REQUIRE_SLOT(node_function);
  return Function(Host().node_function(n_));
}
inline void Node::InlineFunction() const {
  KILN_SDK_REQUIRE_SLOT(node_inline_function);
  Check(Host().node_inline_function(n_));
}
inline std::optional<Value::ShapeData> Value::InferredData() const {
  if (!KILN_HOST_HAS(&Host(), value_shape_data)) return std::nullopt;
  int32_t scalar = 0;
  const int64_t n = Host().value_shape_data(v_, nullptr, nullptr, 0, &scalar);
  if (n < 0) return std::nullopt;
  std::vector<int64_t> values(static_cast<size_t>(n));
  std::vector<const char*> symbols(static_cast<size_t>(n));
  Host().value_shape_data(v_, values.data(), symbols.data(), static_cast<size_t>(n), nullptr);
  ShapeData d;
  d.scalar = scalar != 0;
  for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
    ShapeDataElement e;
    if (symbols[i] == nullptr) e.value = values[i];
    else e.symbol = symbols[i];
    d.elements.push_back(std::move(e));
  }
  return d;
}
inline Graph Node::CallInstance() const {
  KILN_SDK_REQUIRE_SLOT(node_call_instance);
  KilnGraph* g = nullptr;
  Check(Host().node_call_instance(n_, &g));
  return Graph(g);
}
inline Graph Node::SetGraphAttr(std::string_view name, Graph source) const {
  KILN_SDK_REQUIRE_SLOT(node_set_attr_graph);
  KilnGraph* out = nullptr;
  Check(Host().node_set_attr_graph(n_, std::string(name).c_str(), source.raw(), &out));
  return Graph(out);
}
inline void Node::SetGraphsAttr(std::string_view name, const std::vector<Graph>& sources) const {
  KILN_SDK_REQUIRE_SLOT(node_set_attr_graphs);
  std::vector<KilnGraph*> raw;
  for (const Graph& g : sources) raw.push_back(g.raw());
  Check(Host().node_set_attr_graphs(n_, std::string(name).c_str(), raw.data(), raw.size()));
}
inline void Node::SetTensorsAttr(std::string_view name, const std::vector<TensorView>& tensors) const {
  KILN_SDK_REQUIRE_SLOT(node_set_attr_tensors);
  std::vector<const KilnTensorView*> raw;
  for (const TensorView& t : tensors) raw.push_back(t.raw());
  Check(Host().node_set_attr_tensors(n_, std::string(name).c_str(), raw.data(), raw.size()));
}
inline void Node::SetAttrRef(std::string_view name, int32_t attr_type, std::string_view ref) const {
  KILN_SDK_REQUIRE_SLOT(node_set_attr_ref);
  Check(Host().node_set_attr_ref(n_, std::string(name).c_str(), attr_type, std::string(ref).c_str()));
}
inline int64_t Node::TopoIndex() const {
  KILN_SDK_REQUIRE_SLOT(node_topo_index);
  return Host().node_topo_index(n_);
}
inline Node Node::ImmediateDominator() const {
  KILN_SDK_REQUIRE_SLOT(node_idom);
  return Node(Host().node_idom(n_));
}
inline Node Node::ImmediatePostDominator() const {
  KILN_SDK_REQUIRE_SLOT(node_ipostdom);
  return Node(Host().node_ipostdom(n_));
}
inline bool Node::Dominates(Node other) const {
  KILN_SDK_REQUIRE_SLOT(node_dominates);
  return Host().node_dominates(n_, other.n_) != 0;
}
inline bool Node::PostDominates(Node other) const {
  KILN_SDK_REQUIRE_SLOT(node_postdominates);
  return Host().node_postdominates(n_, other.n_) != 0;
}
inline bool Node::Reaches(Node other) const {
  KILN_SDK_REQUIRE_SLOT(node_reaches);
  return Host().node_reaches(n_, other.n_) != 0;
}

inline Model Graph::OwnerModel() const {
  KILN_SDK_REQUIRE_SLOT(graph_model);
  return Model(Host().graph_model(g_));
}
inline Function Graph::AsFunctionBody() const {
  KILN_SDK_REQUIRE_SLOT(graph_function);
  return Function(Host().graph_function(g_));
}
inline std::vector<Value> Graph::Initializers() const {
  KILN_SDK_REQUIRE_SLOT(graph_initializer_at);
  std::vector<Value> out(Host().graph_initializer_count(g_));
  for (size_t i = 0; i < out.size(); ++i) out[i] = Value(Host().graph_initializer_at(g_, i));
  return out;
}
inline Value Graph::AddInput(std::string_view name, int32_t elem_type, const std::optional<TensorShape>& shape) const {
  KILN_SDK_REQUIRE_SLOT(graph_add_input);
  detail::ShapeArrays a(shape);
  KilnValue* v = nullptr;
  Check(Host().graph_add_input(g_, std::string(name).c_str(), elem_type, a.rank, a.dims.data(), a.symbols.data(), &v));
  return Value(v);
}
inline void Graph::AddOutput(Value v) const {
  KILN_SDK_REQUIRE_SLOT(graph_add_output);
  Check(Host().graph_add_output(g_, v.raw()));
}
inline void Graph::SetOutput(size_t i, Value v) const {
  KILN_SDK_REQUIRE_SLOT(graph_set_output);
  Check(Host().graph_set_output(g_, i, v.raw()));
}
inline void Graph::RemoveOutput(size_t i) const {
  KILN_SDK_REQUIRE_SLOT(graph_remove_output);
  Check(Host().graph_remove_output(g_, i));
}
inline std::vector<Node> Graph::TopoOrder() const {
  KILN_SDK_REQUIRE_SLOT(graph_topo_order);
  std::vector<KilnNode*> raw(Host().graph_topo_order(g_, nullptr, 0));
  raw.resize(Host().graph_topo_order(g_, raw.data(), raw.size()));
  return std::vector<Node>(raw.begin(), raw.end());
}
inline void Graph::SetNodeOrder(const std::vector<Node>& order) const {
  KILN_SDK_REQUIRE_SLOT(graph_set_node_order);
  std::vector<KilnNode*> raw;
  raw.reserve(order.size());
  for (const Node& n : order) raw.push_back(n.raw());
  Check(Host().graph_set_node_order(g_, raw.data(), raw.size()));
}

}  // namespace kiln::sdk
