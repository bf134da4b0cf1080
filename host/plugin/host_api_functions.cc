// ABI 1.2 slots for model-local functions: listing, creating and removing them, reading their signature and body,
// resolving calls, and outlining node sets into functions (host/ir/outline.h) and inlining calls back; since 1.3,
// a call's typed instance (host/shape/call_instance.h).
#include <iterator>
#include <stdexcept>
#include <unordered_set>

#include "ir/model.h"
#include "ir/outline.h"
#include "plugin/host_api.h"
#include "shape/call_instance.h"

namespace kiln::plugin {
namespace {

Model& LiveModel(KilnModel* m) {
  if (!m) throw std::invalid_argument("model is NULL");
  return *FromKiln(m);
}

Function& LiveFunction(KilnFunction* f) {
  if (!f) throw std::invalid_argument("function is NULL");
  Function& fn = *FromKiln(f);
  if (fn.is_deleted()) throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "function '" + fn.name() + "' was removed");
  return fn;
}

bool IsOnnxDomain(std::string_view d) {
  return d.empty() || d == "ai.onnx" || d == "ai.onnx.ml" || d == "ai.onnx.training" || d == "ai.onnx.preview.training";
}

size_t FunctionCount(KilnModel* m) { return m ? FromKiln(m)->num_functions() : 0; }
KilnFunction* FunctionAt(KilnModel* m, size_t i) {
  if (!m || i >= FromKiln(m)->num_functions()) return nullptr;
  return ToKiln(std::next(FromKiln(m)->functions().begin(), static_cast<ptrdiff_t>(i))->get());
}
KilnFunction* FindFunction(KilnModel* m, const char* domain, const char* name) {
  if (!m || !domain || !name) return nullptr;
  return ToKiln(FromKiln(m)->FindFunction(domain, name));
}

KilnStatus* CreateFunction(KilnModel* m, const KilnFunctionInfo* info, KilnFunction** out) {
  return Guarded([&] {
    Model& model = LiveModel(m);
    if (!info || !out) throw std::invalid_argument("info or out_function is NULL");
    if (info->struct_size < KILN_STRUCT_SIZE_UNTIL(KilnFunctionInfo, doc))
      throw SlotError(KILN_STATUS_ABI_MISMATCH, "KilnFunctionInfo is smaller than ABI 1.2's");
    if (!info->domain || IsOnnxDomain(info->domain))
      throw std::invalid_argument("a function needs a custom domain, not '" +
                                  std::string(info->domain ? info->domain : "") + "'");
    if (!info->name || !*info->name) throw std::invalid_argument("the function has no name");
    if (model.FindFunction(info->domain, info->name))
      throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "function '" + std::string(info->domain) + "." + info->name +
                                                           "' already exists");
    if (info->input_count && !info->input_names) throw std::invalid_argument("input_names is NULL");
    if (info->attribute_count && !info->attribute_names) throw std::invalid_argument("attribute_names is NULL");
    std::unordered_set<std::string> seen;
    for (size_t i = 0; i < info->input_count; ++i)
      if (!info->input_names[i] || !*info->input_names[i] || !seen.insert(info->input_names[i]).second)
        throw std::invalid_argument("input " + std::to_string(i) + " has no name or a name given twice");
    std::vector<std::string> attributes;
    for (size_t i = 0; i < info->attribute_count; ++i) {
      if (!info->attribute_names[i] || !*info->attribute_names[i])
        throw std::invalid_argument("attribute " + std::to_string(i) + " has no name");
      attributes.push_back(info->attribute_names[i]);
    }
    Function* f = model.AddFunction(info->domain, info->name);
    for (size_t i = 0; i < info->input_count; ++i) f->body().AddInput(info->input_names[i], Type());
    f->SetAttributeNames(std::move(attributes));
    if (std::optional<int64_t> onnx = model.OpsetVersion("")) f->EnsureOpset("", *onnx);
    if (info->doc) f->doc_string = info->doc;
    model.EnsureOpset(info->domain, 1);
    *out = ToKiln(f);
  });
}

KilnStatus* RemoveFunction(KilnFunction* f) {
  return Guarded([&] {
    Function& fn = LiveFunction(f);
    std::vector<Node*> calls = fn.model()->CallsOf(fn);
    if (!calls.empty())
      throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "function '" + fn.name() + "' is still called by node '" +
                                                           calls.front()->name() + "' (" +
                                                           std::to_string(calls.size()) + " calls)");
    fn.model()->RemoveFunction(&fn);
  });
}

const char* FunctionName(KilnFunction* f) { return f ? FromKiln(f)->name().c_str() : ""; }
const char* FunctionDomain(KilnFunction* f) { return f ? FromKiln(f)->domain().c_str() : ""; }
KilnGraph* FunctionBody(KilnFunction* f) { return f ? ToKiln(&FromKiln(f)->body()) : nullptr; }
size_t FunctionAttributeCount(KilnFunction* f) { return f ? FromKiln(f)->attribute_names().size() : 0; }
const char* FunctionAttributeName(KilnFunction* f, size_t i) {
  return f && i < FromKiln(f)->attribute_names().size() ? FromKiln(f)->attribute_names()[i].c_str() : nullptr;
}
size_t FunctionCallCount(KilnFunction* f) {
  return GuardedValue<size_t>(0, [&] { return f ? FromKiln(f)->model()->CallsOf(*FromKiln(f)).size() : size_t{0}; });
}
KilnFunction* NodeFunction(KilnNode* n) {
  if (!n || FromKiln(n)->is_deleted()) return nullptr;
  return ToKiln(FromKiln(n)->graph()->model()->CalledFunction(*FromKiln(n)));
}
KilnFunction* GraphFunction(KilnGraph* g) { return g ? ToKiln(FromKiln(g)->function()) : nullptr; }

KilnStatus* GraphOutline(KilnGraph* g, KilnNode* const* nodes, size_t count, const KilnOutlineInfo* info,
                         KilnNode** out_call, KilnFunction** out_function) {
  return Guarded([&] {
    if (!g) throw std::invalid_argument("graph is NULL");
    if (!info) throw std::invalid_argument("info is NULL");
    if (info->struct_size < KILN_STRUCT_SIZE_UNTIL(KilnOutlineInfo, call_name))
      throw SlotError(KILN_STATUS_ABI_MISMATCH, "KilnOutlineInfo is smaller than ABI 1.2's");
    if (count && !nodes) throw std::invalid_argument("nodes is NULL");
    if (info->output_count && !info->outputs) throw std::invalid_argument("outputs is NULL");
    if (!info->domain || IsOnnxDomain(info->domain))
      throw std::invalid_argument("a function needs a custom domain, not '" +
                                  std::string(info->domain ? info->domain : "") + "'");
    OutlineOptions o;
    o.domain = info->domain;
    o.name = info->name && *info->name ? info->name : "group";
    for (size_t i = 0; i < info->output_count; ++i) o.outputs.push_back(FromKiln(info->outputs[i]));
    o.allow_extra_outputs = info->flags & KILN_OUTLINE_ALLOW_EXTRA_OUTPUTS;
    o.reuse_body = info->flags & KILN_OUTLINE_REUSE_BODY;
    o.attributes_by_reference = info->flags & KILN_OUTLINE_ATTRIBUTES_BY_REFERENCE;
    o.assume_convex = info->flags & KILN_OUTLINE_ASSUME_CONVEX;
    o.embed_constant_max_bytes = info->embed_constant_max_bytes;
    if (info->call_name) o.call_name = info->call_name;
    std::vector<Node*> set;
    for (size_t i = 0; i < count; ++i) set.push_back(nodes[i] ? FromKiln(nodes[i]) : nullptr);
    Graph& graph = *FromKiln(g);
    OutlineResult r = Outline(graph, set, o);
    if (!r.refusal.empty()) throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "cannot outline: " + r.refusal);
    if (o.assume_convex) CallFrame::Current().CheckAcyclicAtEnd(&graph);
    if (out_call) *out_call = ToKiln(r.call);
    if (out_function) *out_function = ToKiln(r.function);
  });
}

KilnStatus* InlineFunction(KilnNode* n) {
  return Guarded([&] {
    if (!n) throw std::invalid_argument("node is NULL");
    Node& call = *FromKiln(n);
    if (call.is_deleted()) throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "node '" + call.name() + "' was deleted");
    if (!call.graph()->model()->CalledFunction(call))
      throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "node '" + call.name() + "' (" + call.op_type() +
                                                           ") calls no model-local function");
    Inline(call);
  });
}

KilnStatus* NodeCallInstance(KilnNode* n, KilnGraph** out_graph) {
  return Guarded([&] {
    if (!n) throw std::invalid_argument("node is NULL");
    if (!out_graph) throw std::invalid_argument("out_graph is NULL");
    const Node& call = *FromKiln(n);
    if (call.is_deleted()) throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "node '" + call.name() + "' was deleted");
    if (!call.graph()->model()->CalledFunction(call))
      throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "node '" + call.name() + "' (" + call.op_type() +
                                                           ") calls no model-local function");
    *out_graph = ToKiln(const_cast<Graph*>(&TypedCallInstance(call)));
  });
}

}  // namespace

void FillFunctionSlots(KilnHostApi& api) {
  api.model_function_count = FunctionCount;
  api.model_function_at = FunctionAt;
  api.model_find_function = FindFunction;
  api.model_create_function = CreateFunction;
  api.function_remove = RemoveFunction;
  api.function_name = FunctionName;
  api.function_domain = FunctionDomain;
  api.function_body = FunctionBody;
  api.function_attribute_count = FunctionAttributeCount;
  api.function_attribute_name = FunctionAttributeName;
  api.function_call_count = FunctionCallCount;
  api.node_function = NodeFunction;
  api.graph_function = GraphFunction;
  api.graph_outline = GraphOutline;
  api.node_inline_function = InlineFunction;
  api.node_call_instance = NodeCallInstance;
}

}  // namespace kiln::plugin
