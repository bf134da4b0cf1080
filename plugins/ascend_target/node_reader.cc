// Reading sdk::Node handles into the cost model's plain structs (node_reader.h).
#include "node_reader.h"

#include <kiln/kiln_plugin_target.hpp>

#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace kiln::ascend {
namespace {

constexpr int kMaxCallDepth = 32;
constexpr uint64_t kMaxIntValues = 64;  // small integer constants (TopK's k, axes) are read whole

std::string IdOf(KilnValue* v) { return "v" + std::to_string(reinterpret_cast<uintptr_t>(v)); }

// How a function body's values and attribute references bind to the call that is being expanded.
struct Binding {
  std::map<KilnValue*, sdk::Value> values;  // body input/output -> the value of the call it stands for
  const std::map<std::string, AttrValue, std::less<>>* attrs = nullptr;  // the call's attributes
};

sdk::Value Bound(sdk::Value v, const Binding& b) {
  auto it = b.values.find(v.raw());
  return it == b.values.end() ? v : it->second;
}

std::optional<AttrValue> ReadAttr(const sdk::Attribute& a) {
  switch (a.Type()) {
    case KILN_ATTR_INT: return AttrValue(a.Int());
    case KILN_ATTR_FLOAT: return AttrValue(static_cast<double>(a.Float()));
    case KILN_ATTR_STRING: return AttrValue(std::string(a.String()));
    case KILN_ATTR_INTS: {
      std::span<const int64_t> v = a.Ints();
      return AttrValue(std::vector<int64_t>(v.begin(), v.end()));
    }
    case KILN_ATTR_FLOATS: {
      std::vector<double> out;
      for (float f : a.Floats()) out.push_back(f);
      return AttrValue(std::move(out));
    }
    default: return std::nullopt;
  }
}

OpNode Read(sdk::Node node, const Binding& b) {
  OpNode n;
  n.op_type = node.OpType();
  n.domain = node.Domain();
  n.name = node.Name();
  if (sdk::Graph g = node.OwnerGraph()) n.opset = g.OpsetVersion("");
  for (sdk::Value v : node.Inputs()) {
    if (v) n.inputs.emplace_back(ReadTensor(Bound(v, b)));
    else n.inputs.emplace_back(std::nullopt);
  }
  for (sdk::Value v : node.Outputs()) {
    if (v) n.outputs.emplace_back(ReadTensor(Bound(v, b)));
    else n.outputs.emplace_back(std::nullopt);
  }
  const bool refs = KILN_HOST_HAS(&sdk::Host(), attr_ref_name);
  for (const sdk::Attribute& a : node.Attrs()) {
    std::string name(a.Name());
    if (refs && b.attrs) {
      if (std::string_view ref = a.RefName(); !ref.empty()) {
        if (auto it = b.attrs->find(ref); it != b.attrs->end()) n.attrs[name] = it->second;
        continue;
      }
    }
    if (std::optional<AttrValue> v = ReadAttr(a)) n.attrs[name] = std::move(*v);
  }
  return n;
}

void Expand(sdk::Node node, const Binding& b, std::vector<OpNode>& out, int depth, bool skip_format_glue) {
  if (!IsFunctionCall(node)) {
    out.push_back(Read(node, b));
    return;
  }
  if (depth >= kMaxCallDepth)
    throw sdk::Error("function calls nest deeper than " + std::to_string(kMaxCallDepth) + " at '" +
                         std::string(node.Name()) + "'",
                     KILN_STATUS_INVALID_ARGUMENT);
  // A host that has it gives the call's typed instance: its nodes are the body's, expanded for this call, and its
  // values have this call's shapes (a shared body's intermediates have those of the call it was made for). An
  // older host gives the body, whose attribute references are bound here.
  const bool instance = KILN_HOST_HAS(&sdk::Host(), node_call_instance);
  OpNode call = Read(node, b);  // for its attributes
  sdk::Graph body = instance ? node.CallInstance() : node.CalledFunction().Body();
  Binding inner;
  if (!instance) inner.attrs = &call.attrs;
  std::vector<sdk::Value> body_in = body.Inputs(), body_out = body.Outputs();
  if (instance) {
    // The instance's inputs are the call's non-constant inputs, in order; its constants are the call's others,
    // under their names.
    size_t k = 0;
    for (size_t i = 0; i < node.InputCount(); ++i) {
      sdk::Value v = node.Input(i);
      if (!v) continue;
      if (!v.IsConstant()) {
        if (k < body_in.size()) inner.values.emplace(body_in[k++].raw(), Bound(v, b));
      } else if (sdk::Value c = body.FindValue(v.Name()); c && c.IsConstant()) {
        inner.values.emplace(c.raw(), Bound(v, b));
      }
    }
  } else {
    for (size_t i = 0; i < body_in.size() && i < node.InputCount(); ++i)
      if (sdk::Value v = node.Input(i)) inner.values.emplace(body_in[i].raw(), Bound(v, b));
  }
  for (size_t i = 0; i < body_out.size() && i < node.OutputCount(); ++i)
    if (sdk::Value v = node.Output(i)) inner.values.emplace(body_out[i].raw(), Bound(v, b));
  // An op running in a blocked format (a kiln.format call that is no conversion): its layout nodes are how it
  // addresses the blocked tensors, not work; each stands for its data input (kiln_plugin_target.hpp).
  const std::string_view callee = node.CalledFunction().Name();
  const bool skip_glue = skip_format_glue && node.CalledFunction().Domain() == sdk::kFormatDomain &&
                         !callee.starts_with("To") && !callee.starts_with("From");
  for (sdk::Node inner_node : body.Nodes()) {
    if (skip_glue && inner_node.Name().starts_with(sdk::kFormatGluePrefix)) {
      if (inner_node.InputCount() > 0 && inner_node.Input(0) && inner_node.OutputCount() > 0 && inner_node.Output(0))
        inner.values[inner_node.Output(0).raw()] = Bound(inner_node.Input(0), inner);
      continue;
    }
    Expand(inner_node, inner, out, depth + 1, skip_format_glue);
  }
}

}  // namespace

bool IsFunctionCall(sdk::Node node) {
  const KilnHostApi& h = sdk::Host();
  return KILN_HOST_HAS(&h, node_function) && h.node_function && h.node_function(node.raw()) != nullptr;
}

TensorInfo ReadTensor(sdk::Value v) {
  TensorInfo t;
  t.id = IdOf(v.raw());
  t.elem_type = v.ElemType();
  const int64_t rank = v.Kind() == KILN_TYPE_KIND_TENSOR || v.Kind() == KILN_TYPE_KIND_NONE ? v.Rank() : -1;
  if (rank >= 0) {
    std::span<const int64_t> dims = v.Dims();
    t.dims = std::vector<int64_t>(dims.begin(), dims.end());
    for (size_t i = 0; i < dims.size(); ++i) {
      const char* s = dims[i] < 0 ? sdk::Host().value_dim_symbol(v.raw(), i) : nullptr;
      t.symbols.push_back(s ? s : "");
    }
  }
  t.constant = v.IsConstant();
  if (t.constant && (t.elem_type == KILN_ELEM_INT64 || t.elem_type == KILN_ELEM_INT32))
    if (sdk::TensorView data = v.ConstantData(); data && data.ByteSize() <= kMaxIntValues * 8) {
      std::vector<int64_t> values;
      if (t.elem_type == KILN_ELEM_INT64)
        for (int64_t x : data.Values<int64_t>()) values.push_back(x);
      else
        for (int32_t x : data.Values<int32_t>()) values.push_back(x);
      t.int_values = std::move(values);
    }
  return t;
}

OpNode ReadNode(sdk::Node node) { return Read(node, Binding{}); }

std::vector<OpNode> ReadGroup(std::span<const sdk::Node> nodes, bool skip_format_glue) {
  std::set<KilnNode*> members;
  for (const sdk::Node& n : nodes) members.insert(n.raw());
  // The group's outputs read outside it, by id.
  std::set<std::string> outside;
  for (const sdk::Node& n : nodes)
    for (sdk::Value v : n.Outputs()) {
      if (!v) continue;
      bool read = v.IsGraphOutput();
      for (const sdk::Use& u : v.Consumers())
        if (!members.count(u.node.raw())) read = true;
      if (read) outside.insert(IdOf(v.raw()));
    }
  std::vector<OpNode> out;
  for (const sdk::Node& n : nodes) Expand(n, Binding{}, out, 0, skip_format_glue);
  for (OpNode& n : out)
    for (auto& o : n.outputs)
      if (o && outside.count(o->id)) o->read_outside = true;
  return out;
}

}  // namespace kiln::ascend
