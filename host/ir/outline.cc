#include "ir/outline.h"

#include <algorithm>
#include <deque>
#include <unordered_set>

#include "analysis/convexity.h"
#include "ir/canonical_form.h"
#include "ir/graph_copy.h"
#include "ir/model.h"
#include "ir/topo_order.h"
#include "support/error.h"

namespace kiln {
namespace {

std::string Label(const Node& n) { return "node '" + (n.name().empty() ? n.op_type() : n.name()) + "'"; }

// The set's nodes in a topological order of the edges between them (ties by position, as the graph's own sort).
std::vector<Node*> OrderWithin(const Graph& g, const std::vector<Node*>& nodes, const std::unordered_set<Node*>& set) {
  std::unordered_map<Node*, int> pending;
  for (Node* n : nodes) pending[n] = 0;
  for (Node* n : nodes)
    ForEachDependent(g, n, [&](Node* c) {
      if (set.count(c)) ++pending[c];
    });
  auto later = [](const Node* a, const Node* b) { return PositionBefore(b, a); };
  std::vector<Node*> heap;
  for (Node* n : nodes)
    if (pending[n] == 0) heap.push_back(n);
  std::make_heap(heap.begin(), heap.end(), later);
  std::vector<Node*> order;
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    Node* n = heap.back();
    heap.pop_back();
    order.push_back(n);
    ForEachDependent(g, n, [&](Node* c) {
      if (set.count(c) && --pending[c] == 0) {
        heap.push_back(c);
        std::push_heap(heap.begin(), heap.end(), later);
      }
    });
  }
  return order;
}

// The first reader of `v` outside the set (a node of g, or one inside a subgraph of a node of g), or null.
Node* ReaderOutside(const Graph& g, const Value& v, const std::unordered_set<Node*>& set) {
  for (const Use& u : v.uses()) {
    Node* top = g.AncestorIn(u.node);
    if (top == nullptr || !set.count(top)) return u.node;
  }
  return nullptr;
}

std::string UniqueFunctionName(const Model& m, const std::string& domain, const std::string& base) {
  if (!m.FindFunction(domain, base)) return base;
  for (int i = 1;; ++i) {
    std::string candidate = base + "_" + std::to_string(i);
    if (!m.FindFunction(domain, candidate)) return candidate;
  }
}

void CollectDomains(const Graph& g, std::vector<std::string>& out) {
  for (const auto& n : g.nodes()) {
    if (std::find(out.begin(), out.end(), n->domain()) == out.end()) out.push_back(n->domain());
    for (const Graph* sub : n->subgraphs()) CollectDomains(*sub, out);
  }
}

// Whether Outline passes an attribute of a group's node by reference (a graph-valued one, or one that already
// refers to an enclosing function's attribute, is copied as it is).
bool PassedByReference(const Attribute& a) {
  return a.kind != AttrKind::kGraph && a.kind != AttrKind::kGraphs && a.graphs.empty() && a.ref_attr_name.empty();
}
std::string RefName(const Attribute& a, size_t k) { return a.name + "_" + std::to_string(k); }

// Turns the set's attributes into references: the body's attribute refers to "<name>_<k>" (k: the node's place in
// the group), which the call sets to the value (CallAttributes).
class ByReference final : public AttributeBinder {
 public:
  ByReference(const Graph& g, const std::unordered_map<const Node*, size_t>& index) : g_(g), index_(index) {}

  std::optional<Attribute> Bind(const Node& src, const Attribute& a, Node* owner, const ValueMap& map) const override {
    auto it = index_.find(&src);
    if (!PassedByReference(a) || src.graph() != &g_ || it == index_.end()) return CopyAttribute(a, owner, map, this);
    Attribute ref;
    ref.name = a.name;
    ref.kind = a.kind;
    ref.ref_attr_name = RefName(a, it->second);
    return ref;
  }

 private:
  const Graph& g_;
  const std::unordered_map<const Node*, size_t>& index_;
};

// What the call of a by-reference body sets: the embedded constants' values ("value_c<i>"), then every node's
// attributes passed by reference, in the group's order.
std::vector<Attribute> CallAttributes(const std::vector<Node*>& order, const std::vector<Value*>& embedded) {
  std::vector<Attribute> out;
  for (size_t i = 0; i < embedded.size(); ++i) {
    Tensor t = *embedded[i]->initializer();
    t.set_name("");
    out.push_back(Attribute::TensorValue("value_c" + std::to_string(i), std::move(t)));
  }
  for (size_t k = 0; k < order.size(); ++k)
    for (const Attribute& a : order[k]->attributes()) {
      if (!PassedByReference(a)) continue;
      Attribute value = CopyAttribute(a, order[k], {});
      value.name = RefName(a, k);
      out.push_back(std::move(value));
    }
  return out;
}

// A key equal for two groups exactly when outlining them gives the same body (names aside): what Outline's body
// reuse looks up, computed from the group without building anything.
std::string GroupKey(const OutlineOptions& o, const std::vector<Node*>& order, const std::vector<Value*>& reads,
                     const std::vector<bool>& embedded, const std::vector<Value*>& outputs) {
  std::unordered_map<const Value*, std::string> ids;
  std::string key = o.domain + "|" + (o.attributes_by_reference ? "ref" : "val") + "|(";
  size_t inputs = 0, constants = 0;
  for (size_t i = 0; i < reads.size(); ++i) {
    if (!embedded[i]) {
      ids[reads[i]] = "i" + std::to_string(inputs++);
      continue;
    }
    ids[reads[i]] = "c" + std::to_string(constants);
    if (o.attributes_by_reference) {
      key += "C" + std::to_string(constants) + ";";
    } else {
      key += "C";
      AppendCanonicalTensor(key, *reads[i]->initializer());
      key += ";";
    }
    ++constants;
  }
  key += std::to_string(inputs) + "){";
  for (size_t k = 0; k < order.size(); ++k) {
    const Node& n = *order[k];
    for (size_t j = 0; j < n.num_outputs(); ++j)
      if (n.output(j)) ids[n.output(j)] = "%" + std::to_string(k) + "." + std::to_string(j);
  }
  for (size_t k = 0; k < order.size(); ++k) {
    const Node& n = *order[k];
    key += n.domain() + "." + n.op_type() + "(";
    for (const Value* in : n.inputs()) {
      auto it = in ? ids.find(in) : ids.end();
      key += (in == nullptr ? std::string("_") : it != ids.end() ? it->second : "@" + in->name()) + ",";
    }
    key += ")" + std::to_string(n.num_outputs()) + "[";
    for (const Attribute& a : n.attributes()) {
      if (o.attributes_by_reference && PassedByReference(a)) key += a.name + "=&" + RefName(a, k) + ";";
      else AppendCanonicalAttribute(key, a);
    }
    key += "];";
  }
  key += "}=>(";
  for (const Value* v : outputs) key += ids.at(v) + ",";
  return key + ")";
}

// Binds a body's attribute references to a call's attributes.
class BindToCall final : public AttributeBinder {
 public:
  BindToCall(const Function& f, const Node& call) : f_(f), call_(call) {}

  std::optional<Attribute> Bind(const Node&, const Attribute& a, Node* owner, const ValueMap& map) const override {
    const Attribute* bound = BoundAttribute(f_, call_, a);
    if (bound == nullptr) return std::nullopt;
    Attribute copy = CopyAttribute(*bound, owner, map, this);
    copy.name = a.name;  // a bound value keeps the call's own reference, if it has one (a call in a body)
    return copy;
  }

 private:
  const Function& f_;
  const Node& call_;
};

}  // namespace

OutlineResult Outline(Graph& g, const std::vector<Node*>& nodes, const OutlineOptions& o) {
  OutlineResult r;
  auto refuse = [&](std::string why) {
    r.refusal = std::move(why);
    return r;
  };
  if (nodes.empty()) return refuse("the set of nodes is empty");
  if (o.domain.empty() || o.domain == "ai.onnx" || o.domain == "ai.onnx.ml")
    return refuse("a function needs a custom domain, not '" + o.domain + "'");
  std::unordered_set<Node*> set;
  for (Node* n : nodes) {
    if (n == nullptr || n->is_deleted()) return refuse("a node of the set is null or deleted");
    if (n->graph() != &g) return refuse(Label(*n) + " is not in graph '" + g.name() + "'");
    if (!set.insert(n).second) return refuse(Label(*n) + " is listed twice");
  }
  std::vector<Node*> order = OrderWithin(g, nodes, set);
  if (!o.assume_convex) {
    Node *outside = nullptr, *inside = nullptr;
    if (!IsConvex(g, order, &outside, &inside))
      return refuse("the set is not convex: a path leaves it through " + Label(*outside) + " and comes back at " +
                    Label(*inside));
  }

  // What the set reads from outside, in order of first use.
  std::vector<Value*> reads;
  std::unordered_set<const Value*> seen;
  for (Node* n : order)
    ForEachRead(*n, [&](Node*, size_t, Value* v) {
      if (!g.IsVisible(v)) return;  // defined inside a subgraph of n
      if (v->producer() != nullptr && v->graph() == &g && set.count(v->producer())) return;
      if (seen.insert(v).second) reads.push_back(v);
    });

  // What it computes that is read outside it.
  std::vector<Value*> outputs = o.outputs;
  for (Value* v : outputs)
    if (v == nullptr || v->producer() == nullptr || !set.count(v->producer()))
      return refuse("requested output '" + (v ? v->name() : std::string("(null)")) + "' is not computed by the set");
  for (Node* n : order)
    for (Value* v : n->outputs()) {
      if (v == nullptr || std::find(outputs.begin(), outputs.end(), v) != outputs.end()) continue;
      Node* reader = ReaderOutside(g, *v, set);
      if (reader == nullptr && !v->is_graph_output()) continue;
      if (!o.outputs.empty() && !o.allow_extra_outputs)
        return refuse("value '" + v->name() + "' of " + Label(*n) + " is " +
                      (reader ? "read by " + Label(*reader) + " outside the set" : std::string("a graph output")) +
                      " but is not an output of the group");
      outputs.push_back(v);
    }
  if (outputs.empty()) return refuse("nothing the set computes is read outside it");

  // Which reads are small constants copied into the body, and which become inputs of the call.
  Model& m = *g.model();
  std::vector<bool> embed(reads.size());
  std::vector<Value*> call_inputs, embedded;
  for (size_t i = 0; i < reads.size(); ++i) {
    Value* v = reads[i];
    embed[i] = v->initializer() != nullptr && !v->is_graph_input() &&
               v->initializer()->byte_size() <= o.embed_constant_max_bytes;
    (embed[i] ? embedded : call_inputs).push_back(v);
  }
  std::vector<Attribute> call_attributes;
  if (o.attributes_by_reference) call_attributes = CallAttributes(order, embedded);

  // The body: found among the functions outlined before (reuse), or built: inputs, copied constants, the nodes,
  // the outputs.
  Function* f = nullptr;
  std::string key;
  if (o.reuse_body) {
    key = GroupKey(o, order, reads, embed, outputs);
    auto it = m.canonical_index().find(key);
    if (it != m.canonical_index().end() && !it->second->is_deleted() && it->second->domain() == o.domain)
      f = it->second;
  }
  if (f == nullptr) {
    f = m.AddFunction(o.domain, UniqueFunctionName(m, o.domain, o.name));
    Graph& body = f->body();
    std::unordered_map<const Node*, size_t> index;
    for (Node* n : order) index.emplace(n, index.size());
    ByReference by_reference(g, index);
    ValueMap map;
    size_t constant = 0;
    for (size_t i = 0; i < reads.size(); ++i) {
      Value* v = reads[i];
      if (!embed[i]) {
        map[v] = body.AddInput(body.FreshName(v->name()), v->type());
        continue;
      }
      Node* c = body.AddNodeWithOutputs("Constant", "", "", {}, {body.FreshName(v->name())});
      if (o.attributes_by_reference) {
        // The value is a reference too, so that groups differing only in their constants share a body.
        Attribute ref;
        ref.name = "value";
        ref.kind = AttrKind::kTensor;
        ref.ref_attr_name = "value_c" + std::to_string(constant);
        c->SetAttribute(std::move(ref));
      } else {
        Tensor t = *v->initializer();
        t.set_name("");
        c->SetAttribute(Attribute::TensorValue("value", std::move(t)));
      }
      ++constant;
      c->output(0)->SetType(v->type());
      map[v] = c->output(0);
    }
    CopyNodes(order, body, map, o.attributes_by_reference ? &by_reference : nullptr);
    for (Value* v : outputs) body.AppendOutput(map.at(v));
    if (o.attributes_by_reference) {
      std::vector<std::string> names;
      for (const Attribute& a : call_attributes) names.push_back(a.name);
      f->SetAttributeNames(std::move(names));
    }
    std::vector<std::string> domains;
    CollectDomains(body, domains);
    std::vector<OpsetImport> imports;
    for (const std::string& d : domains) imports.push_back({d, m.OpsetVersion(d).value_or(1)});
    f->SetOpsetImports(std::move(imports));
    f->doc_string = "Outlined by Kiln from " + std::to_string(order.size()) + " nodes of graph '" + g.name() + "'.";
    // A hint (not journaled): a rolled-back function is deleted, and a deleted one is never reused.
    if (o.reuse_body) m.canonical_index()[key] = f;
  }

  // The call, in the set's place; the values it replaces move to it with their names and readers.
  const int64_t saved_order = m.insertion_order;
  m.insertion_order = order.front()->order();
  for (Node* n : order) m.insertion_order = std::min(m.insertion_order, n->order());
  // The call's output slots start empty: the values it replaces move into them.
  std::vector<std::string> placeholders(outputs.size());
  std::string call_name = o.call_name.empty() ? g.FreshName(f->name()) : o.call_name;
  Node* call = g.AddNodeWithOutputs(f->name(), f->domain(), call_name, call_inputs, placeholders);
  m.insertion_order = saved_order;
  for (Attribute& a : call_attributes) call->SetAttribute(std::move(a));
  for (size_t i = 0; i < outputs.size(); ++i) g.TransferOutput(call, i, outputs[i], /*leave_empty=*/true);
  for (auto it = order.rbegin(); it != order.rend(); ++it) g.RemoveNode(*it);
  m.EnsureOpset(o.domain, 1);
  r.call = call;
  r.function = f;
  return r;
}

std::unique_ptr<Graph> InstantiateBody(const Function& f, const Node& call, Model& into) {
  const Graph& body = f.body();
  auto g = std::make_unique<Graph>(&into, nullptr, nullptr);
  g->set_name(f.name());
  ValueMap map;
  for (Value* in : body.inputs()) map[in] = g->AddInput(g->FreshName(in->name()), in->type());
  for (Value* init : body.initializers()) {
    Value* copy = g->AddValue(g->FreshName(init->name()));
    g->SetInitializer(copy, init->initializer());
    map[init] = copy;
  }
  BindToCall bind(f, call);
  CopyNodes(TopologicalOrderOrThrow(body, "function '" + f.name() + "'"), *g, map, &bind);
  for (Value* out : body.outputs()) {
    auto it = map.find(out);
    if (it == map.end()) throw ModelError("function '" + f.name() + "': output '" + out->name() + "' is not computed");
    g->AppendOutput(it->second);
  }
  return g;
}

namespace {

constexpr int kMaxExpandDepth = 64;

std::vector<Value*> ExpandCallAt(const Function& f, const Node& call, Graph& g, const std::vector<Value*>& inputs,
                                 int depth) {
  if (depth >= kMaxExpandDepth)
    throw ModelError("calls of model-local functions nest deeper than " + std::to_string(kMaxExpandDepth) +
                     " (is '" + f.name() + "' recursive?)");
  const Graph& body = f.body();
  const Model& m = *f.model();
  ValueMap map;
  for (size_t i = 0; i < body.inputs().size(); ++i) map[body.inputs()[i]] = i < inputs.size() ? inputs[i] : nullptr;
  for (Value* init : body.initializers()) {
    Value* copy = g.AddValue(g.FreshName(init->name()));
    g.SetInitializer(copy, init->initializer());
    map[init] = copy;
  }
  BindToCall bind(f, call);
  for (Node* n : TopologicalOrderOrThrow(body, "function '" + f.name() + "'")) {
    Node* copy = CopyNodes({n}, g, map, &bind).front();
    for (Value* out : copy->outputs())
      if (out != nullptr) out->SetType(Type{});
    const Function* inner = m.CalledFunction(*n);
    if (inner == nullptr) continue;
    std::vector<Value*> expanded =
        ExpandCallAt(*inner, *copy, g, {copy->inputs().begin(), copy->inputs().end()}, depth + 1);
    for (size_t j = 0; j < n->num_outputs(); ++j)
      if (n->output(j) != nullptr) map[n->output(j)] = j < expanded.size() ? expanded[j] : nullptr;
    g.RemoveNode(copy);
  }
  std::vector<Value*> outs;
  for (Value* out : body.outputs()) {
    auto it = map.find(out);
    if (it == map.end() || it->second == nullptr)
      throw ModelError("function '" + f.name() + "': output '" + out->name() + "' is not computed");
    outs.push_back(it->second);
  }
  return outs;
}

}  // namespace

std::vector<Value*> ExpandCall(const Function& f, const Node& call, Graph& g, const std::vector<Value*>& inputs) {
  return ExpandCallAt(f, call, g, inputs, 0);
}

void Inline(Node& call) {
  Graph& g = *call.graph();
  Model& m = *g.model();
  Function* f = m.CalledFunction(call);
  if (f == nullptr) throw InternalError("Inline: " + Label(call) + " calls no function of the model");
  const Graph& body = f->body();
  if (call.num_inputs() > body.inputs().size() || call.num_outputs() > body.outputs().size())
    throw ModelError(Label(call) + " calls '" + f->name() + "' with more inputs or outputs than it has");
  ValueMap map;
  for (size_t i = 0; i < body.inputs().size(); ++i) map[body.inputs()[i]] = call.input(i);
  for (Value* init : body.initializers()) {
    Value* copy = g.AddValue(g.FreshName(init->name()));
    g.SetInitializer(copy, init->initializer());
    map[init] = copy;
  }
  const int64_t saved_order = m.insertion_order;
  m.insertion_order = call.order();
  BindToCall bind(*f, call);
  std::vector<Node*> order = TopologicalOrderOrThrow(body, "function '" + f->name() + "'");
  std::vector<Node*> copies = CopyNodes(order, g, map, &bind);
  std::unordered_set<Node*> copied(copies.begin(), copies.end());
  std::unordered_set<Value*> taken;
  for (size_t i = 0; i < call.num_outputs(); ++i) {
    Value* out = call.output(i);
    if (out == nullptr) continue;
    Value* inner = map.count(body.outputs()[i]) ? map.at(body.outputs()[i]) : nullptr;
    if (inner != nullptr && inner->producer() != nullptr && copied.count(inner->producer()) &&
        !inner->is_graph_output() && taken.insert(inner).second) {
      Node* producer = inner->producer();
      size_t slot = inner->producer_output();
      g.ReplaceAllUsesWith(inner, out);
      g.TransferOutput(producer, slot, out);
    } else {
      // The body returns one of its inputs, a constant, or one value twice: an Identity stands in.
      Node* id = g.AddNodeWithOutputs("Identity", "", "", {inner}, {g.FreshName(out->name() + "_inlined")});
      g.TransferOutput(id, 0, out);
    }
  }
  m.insertion_order = saved_order;
  g.RemoveNode(&call);
}

}  // namespace kiln
