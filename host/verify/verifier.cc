#include "verify/verifier.h"

#include <onnx/defs/schema.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include "ir/model.h"
#include "ir/topo_order.h"
#include "shape/schema_registry.h"
#include "support/error.h"

namespace kiln {
namespace {

std::string GraphLabel(const Graph& g) {
  if (const Function* f = g.function()) return "function '" + f->domain() + "." + f->name() + "'";
  if (g.owner_node() == nullptr) return "graph '" + g.name() + "'";
  return "subgraph '" + g.name() + "' of node '" + g.owner_node()->name() + "'";
}

std::string NodeLabel(const Node& n) {
  return GraphLabel(*n.graph()) + " node '" + n.name() + "' (" + n.op_type() + ")";
}

bool IsDefined(const Value* v) {
  return v->producer() != nullptr || v->is_graph_input() || v->is_initializer();
}

void CheckNodeLinks(const Node& n, std::vector<VerifyIssue>& out) {
  for (size_t i = 0; i < n.num_inputs(); ++i) {
    const Value* v = n.input(i);
    if (v == nullptr) continue;
    if (v->is_deleted()) {
      out.push_back({NodeLabel(n), "input " + std::to_string(i) + " reads '" + v->name() + "', which was deleted"});
      continue;
    }
    if (!n.graph()->IsVisible(v))
      out.push_back({NodeLabel(n), "input " + std::to_string(i) + " reads '" + v->name() +
                                       "', which is not in scope (defined in another subgraph)"});
    if (!IsDefined(v))
      out.push_back({NodeLabel(n), "input " + std::to_string(i) + " reads '" + v->name() +
                                       "', which no node, graph input or initializer defines"});
    if (std::find(v->uses().begin(), v->uses().end(), Use{const_cast<Node*>(&n), static_cast<uint32_t>(i)}) ==
        v->uses().end())
      out.push_back({NodeLabel(n), "value '" + v->name() + "' does not list this node as a consumer"});
  }
  for (size_t i = 0; i < n.num_outputs(); ++i) {
    const Value* v = n.output(i);
    if (v == nullptr) continue;
    if (v->producer() != &n || v->producer_output() != i)
      out.push_back({NodeLabel(n), "output '" + v->name() + "' names another producer"});
    for (const Use& u : v->uses())
      if (u.node->is_deleted() || u.node->input(u.slot) != v)
        out.push_back({NodeLabel(n), "output '" + v->name() + "' lists a stale consumer"});
  }
}

std::string TensorTypeString(DataType t) { return "tensor(" + std::string(DataTypeName(t)) + ")"; }

// The opset version of n's domain where n is: a function body's own imports, else the model's.
std::optional<int64_t> OpsetOf(const Model& m, const Node& n) {
  if (const Function* f = n.graph()->root()->function()) {
    auto norm = [](std::string_view d) { return d == "ai.onnx" ? std::string_view() : d; };
    for (const OpsetImport& o : f->opset_imports())
      if (norm(o.domain) == norm(n.domain())) return o.version;
    return std::nullopt;
  }
  return m.OpsetVersion(n.domain());
}

// A call of a model-local function: arity, attributes, and every attribute the body needs.
void CheckCall(const Model& m, const Node& n, const Function& f, std::vector<VerifyIssue>& out) {
  const Graph& body = f.body();
  if (n.num_inputs() > body.inputs().size())
    out.push_back({NodeLabel(n), "has " + std::to_string(n.num_inputs()) + " inputs; function '" + f.name() +
                                     "' takes " + std::to_string(body.inputs().size())});
  if (n.num_outputs() > body.outputs().size())
    out.push_back({NodeLabel(n), "has " + std::to_string(n.num_outputs()) + " outputs; function '" + f.name() +
                                     "' returns " + std::to_string(body.outputs().size())});
  const auto& declared = f.attribute_names();
  for (const Attribute& a : n.attributes())
    if (std::find(declared.begin(), declared.end(), a.name) == declared.end())
      out.push_back({NodeLabel(n), "sets attribute '" + a.name + "', which function '" + f.name() + "' does not declare"});
  // A body attribute referring to one the call omits (with no default) is left out of its node; that is an error
  // when the node's op requires the attribute (ONNX's checker misses it; runtimes fail to load such models).
  for (const auto& inner : body.nodes()) {
    for (const Attribute& a : inner->attributes()) {
      if (a.ref_attr_name.empty() || n.FindAttribute(a.ref_attr_name) || f.FindDefault(a.ref_attr_name)) continue;
      auto version = OpsetOf(m, *inner);
      const onnx::OpSchema* s =
          version ? FindOnnxSchema(inner->op_type(), static_cast<int>(*version), inner->domain()) : nullptr;
      bool required = inner->op_type() == "Constant" && inner->domain().empty();  // Constant needs one value
      if (s) {
        auto it = s->attributes().find(a.name);
        required = required || (it != s->attributes().end() && it->second.required);
      }
      if (required)
        out.push_back({NodeLabel(n), "omits attribute '" + a.ref_attr_name + "', which function '" + f.name() +
                                         "' needs for attribute '" + a.name + "' of its node '" + inner->name() + "' (" +
                                         inner->op_type() + ")"});
    }
  }
}

void CheckSchema(const Model& m, const Node& n, std::vector<VerifyIssue>& out) {
  auto version = OpsetOf(m, n);
  if (!version) {
    bool in_function = n.graph()->root()->function() != nullptr;
    out.push_back({NodeLabel(n), "domain '" + n.domain() + "' has no opset import" +
                                     (in_function ? " in the function's opset_import" : "")});
    return;
  }
  if (const Function* f = m.CalledFunction(n)) {
    CheckCall(m, n, *f, out);
    return;
  }
  const onnx::OpSchema* s = FindOnnxSchema(n.op_type(), static_cast<int>(*version), n.domain());
  if (s == nullptr) return;  // unknown or custom op: nothing to check against
  const int nin = static_cast<int>(n.num_inputs()), nout = static_cast<int>(n.num_outputs());
  if (nin < s->min_input() || nin > s->max_input())
    out.push_back({NodeLabel(n), "has " + std::to_string(nin) + " inputs; opset " + std::to_string(*version) +
                                     " allows " + std::to_string(s->min_input()) + " to " + std::to_string(s->max_input())});
  if (nout < s->min_output() || nout > s->max_output())
    out.push_back({NodeLabel(n), "has " + std::to_string(nout) + " outputs; opset " + std::to_string(*version) +
                                     " allows " + std::to_string(s->min_output()) + " to " + std::to_string(s->max_output())});
  const auto& formal_inputs = s->inputs();
  for (size_t i = 0; i < formal_inputs.size() && i < n.num_inputs(); ++i)
    if (n.input(i) == nullptr && formal_inputs[i].GetOption() == onnx::OpSchema::Single)
      out.push_back({NodeLabel(n), "required input " + std::to_string(i) + " ('" + formal_inputs[i].GetName() +
                                       "') is missing"});
  std::map<std::string, std::pair<DataType, std::string>> bound;  // type parameter -> (type, value)
  std::map<std::string, const onnx::OpSchema::TypeConstraintParam*> constraints;
  for (const auto& c : s->typeConstraintParams()) constraints[c.type_param_str] = &c;
  auto bind = [&](const std::vector<onnx::OpSchema::FormalParameter>& formals, std::span<Value* const> actual) {
    for (size_t i = 0; i < actual.size(); ++i) {
      const Value* v = actual[i];
      if (v == nullptr || !v->type().is_tensor() || !v->type().elem_declared || v->elem_type() == DataType::kUndefined)
        continue;
      if (formals.empty()) return;
      const auto& f = formals[std::min(i, formals.size() - 1)];
      if (i >= formals.size() && f.GetOption() != onnx::OpSchema::Variadic) return;
      if (i >= formals.size() - 1 && f.GetOption() == onnx::OpSchema::Variadic && !f.GetIsHomogeneous()) continue;
      const std::string& param = f.GetTypeStr();
      auto c = constraints.find(param);
      if (c == constraints.end()) continue;  // a fixed type such as tensor(int64); the checker covers those
      const auto& allowed = c->second->allowed_type_strs;
      std::string ts = TensorTypeString(v->elem_type());
      if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), ts) == allowed.end() &&
          std::none_of(allowed.begin(), allowed.end(), [](const std::string& a) { return a.rfind("tensor", 0) != 0; }))
        out.push_back({NodeLabel(n), "'" + v->name() + "' is " + ts + ", which type parameter " + param + " does not allow"});
      auto [it, inserted] = bound.emplace(param, std::make_pair(v->elem_type(), v->name()));
      if (!inserted && it->second.first != v->elem_type())
        out.push_back({NodeLabel(n), "'" + v->name() + "' is " + ts + " but '" + it->second.second + "' is " +
                                         TensorTypeString(it->second.first) + "; both are bound to " + param});
    }
  };
  bind(s->inputs(), n.inputs());
  bind(s->outputs(), n.outputs());
}

void VerifyGraph(const Model& m, const Graph& g, std::vector<VerifyIssue>& out) {
  TopoResult topo = TopologicalOrder(g);
  if (!topo.cycle_nodes.empty())
    out.push_back({GraphLabel(g), "has a cycle through node '" + topo.cycle_nodes[0]->name() + "'"});
  for (const Value* v : g.initializers()) {
    const Tensor& t = *v->initializer();
    if (v->type().is_tensor() && v->type().elem_declared && v->elem_type() != t.type())
      out.push_back({GraphLabel(g), "initializer '" + v->name() + "' holds " + std::string(DataTypeName(t.type())) +
                                        " data but is declared " + v->type().ToString()});
  }
  for (const Value* v : g.outputs()) {
    if (v->is_deleted() || !g.IsVisible(v) || !IsDefined(v))
      out.push_back({GraphLabel(g), "output '" + v->name() + "' is not defined in scope"});
  }
  size_t holders = 0;
  for (const auto& n : g.nodes()) {
    CheckNodeLinks(*n, out);
    CheckSchema(m, *n, out);
    holders += n->has_subgraphs();
    for (const Graph* sub : n->subgraphs()) {
      if (sub->parent() != &g || sub->owner_node() != n.get())
        out.push_back({NodeLabel(*n), "subgraph '" + sub->name() + "' has wrong scope links"});
      VerifyGraph(m, *sub, out);
    }
  }
  if (holders != g.subgraph_holders())  // walks of the graph tree would skip subgraphs, or walk for nothing
    out.push_back({GraphLabel(g), "counts " + std::to_string(g.subgraph_holders()) + " nodes holding subgraphs, has " +
                                      std::to_string(holders)});
}

}  // namespace

// Functions may call functions, but not themselves, directly or through others (ONNX forbids recursion).
void CheckNoRecursion(const Model& m, std::vector<VerifyIssue>& out) {
  std::map<const Function*, int> state;  // 1: on the current path, 2: done
  std::function<bool(const Function*)> visit = [&](const Function* f) {
    int& st = state[f];
    if (st == 1) return false;
    if (st == 2) return true;
    st = 1;
    bool ok = true;
    ForEachGraphIn(f->body(), [&](const Graph& g) {
      for (const auto& n : g.nodes())
        if (const Function* callee = m.CalledFunction(*n); ok && callee && !visit(callee)) {
          out.push_back({"function '" + f->domain() + "." + f->name() + "'",
                         "calls '" + callee->name() + "', which calls it back (recursion)"});
          ok = false;
        }
    });
    state[f] = 2;
    return ok;
  };
  for (const auto& f : m.functions()) visit(f.get());
}

std::vector<VerifyIssue> VerifyModel(const Model& model) {
  std::vector<VerifyIssue> out;
  VerifyGraph(model, model.graph(), out);
  for (const auto& f : model.functions()) {
    if (f->domain().empty() || f->domain() == "ai.onnx")
      out.push_back({"function '" + f->name() + "'", "is in the default domain; a model-local function needs its own"});
    VerifyGraph(model, f->body(), out);
  }
  CheckNoRecursion(model, out);
  return out;
}

std::vector<VerifyIssue> VerifyNode(const Node& node) {
  std::vector<VerifyIssue> out;
  if (!node.is_deleted()) CheckNodeLinks(node, out);
  return out;
}

std::string IssueText(const VerifyIssue& issue) { return issue.where + ": " + issue.message; }

void VerifyModelOrThrow(const Model& model, const std::string& context, const IssueSet* known) {
  auto issues = VerifyModel(model);
  if (known) std::erase_if(issues, [&](const VerifyIssue& i) { return known->contains(IssueText(i)); });
  if (issues.empty()) return;
  std::string msg = "verification failed " + context + ": ";
  for (size_t i = 0; i < issues.size() && i < 5; ++i) msg += (i ? "; " : "") + IssueText(issues[i]);
  if (issues.size() > 5) msg += " (and " + std::to_string(issues.size() - 5) + " more)";
  throw InternalError(msg);
}

}  // namespace kiln
