#include "verify/verifier.h"

#include <onnx/defs/schema.h>

#include <algorithm>
#include <map>

#include "ir/model.h"
#include "ir/topo_order.h"
#include "support/error.h"

namespace kiln {
namespace {

std::string GraphLabel(const Graph& g) {
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

void CheckSchema(const Model& m, const Node& n, std::vector<VerifyIssue>& out) {
  auto version = m.OpsetVersion(n.domain());
  if (!version) {
    out.push_back({NodeLabel(n), "domain '" + n.domain() + "' has no opset import"});
    return;
  }
  const onnx::OpSchema* s = onnx::OpSchemaRegistry::Schema(n.op_type(), static_cast<int>(*version), n.domain());
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
  for (const auto& n : g.nodes()) {
    CheckNodeLinks(*n, out);
    CheckSchema(m, *n, out);
    for (const Graph* sub : n->subgraphs()) {
      if (sub->parent() != &g || sub->owner_node() != n.get())
        out.push_back({NodeLabel(*n), "subgraph '" + sub->name() + "' has wrong scope links"});
      VerifyGraph(m, *sub, out);
    }
  }
}

}  // namespace

std::vector<VerifyIssue> VerifyModel(const Model& model) {
  std::vector<VerifyIssue> out;
  VerifyGraph(model, model.graph(), out);
  return out;
}

std::vector<VerifyIssue> VerifyNode(const Node& node) {
  std::vector<VerifyIssue> out;
  if (!node.is_deleted()) CheckNodeLinks(node, out);
  return out;
}

void VerifyModelOrThrow(const Model& model, const std::string& context) {
  auto issues = VerifyModel(model);
  if (issues.empty()) return;
  std::string msg = "verification failed " + context + ": ";
  for (size_t i = 0; i < issues.size() && i < 5; ++i)
    msg += (i ? "; " : "") + issues[i].where + ": " + issues[i].message;
  if (issues.size() > 5) msg += " (and " + std::to_string(issues.size() - 5) + " more)";
  throw InternalError(msg);
}

}  // namespace kiln
