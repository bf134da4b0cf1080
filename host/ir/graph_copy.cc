#include "ir/graph_copy.h"

#include "ir/graph.h"
#include "ir/model.h"
#include "ir/topo_order.h"
#include "support/error.h"

namespace kiln {
namespace {

// The value standing for `v` (read from outside the graph being copied) at the copy's place `g`.
Value* OuterValue(const Value* v, const Graph& g, const ValueMap& map) {
  if (auto it = map.find(v); it != map.end()) return it->second;
  if (g.IsVisible(v)) return const_cast<Value*>(v);
  if (Value* by_name = g.LookupValue(v->name())) return by_name;
  throw InternalError("copying a subgraph: no value '" + v->name() + "' is visible where the copy goes");
}

void CopyValueDetails(const Value& from, Value& to) {
  if (from.type().kind != Type::Kind::kNone) to.SetType(from.type());
  to.set_doc_string(from.doc_string());
  for (const auto& [k, v] : from.annotations()) to.SetAnnotation(k, v);
}

}  // namespace

std::unique_ptr<Graph> CopyGraph(const Graph& src, Graph* parent, Node* owner, const ValueMap& outer,
                                 const AttributeBinder* bind) {
  Model* model = parent ? parent->model() : src.model();
  auto g = std::make_unique<Graph>(model, parent, owner);
  g->set_name(src.name());
  g->set_doc_string(src.doc_string());
  ValueMap map = outer;
  for (Value* in : src.inputs()) {
    if (in->is_initializer()) continue;  // declared with the initializers below
    Value* copy = g->AddInput(g->FreshName(in->name()), in->type());
    copy->set_doc_string(in->doc_string());
    map[in] = copy;
  }
  for (Value* init : src.initializers()) {
    Value* copy = g->AddValue(g->FreshName(init->name()));
    g->SetInitializer(copy, init->initializer());
    CopyValueDetails(*init, *copy);
    map[init] = copy;
  }
  for (Value* sp : src.sparse_initializers()) {
    SparseTensor t = *sp->sparse_initializer();
    t.values.set_name(g->FreshName(sp->name()));
    map[sp] = g->AddSparseInitializer(std::move(t));
  }
  // IR < 4 models list initializers among the inputs too: keep that, in the original order.
  if (src.inputs().size() != g->inputs().size()) {
    while (!g->inputs().empty()) g->RemoveInput(g->inputs().size() - 1);
    for (Value* in : src.inputs()) g->AppendInput(map.at(in));
  }
  // Outer values the nodes read resolve through `outer`, visibility or name.
  std::vector<Node*> order = TopologicalOrderOrThrow(src, "copying graph '" + src.name() + "'");
  for (Node* n : order)
    for (Value* v : n->inputs())
      if (v != nullptr && v->graph() != &src && !map.count(v)) map[v] = OuterValue(v, *g, outer);
  CopyNodes(order, *g, map, bind);
  for (Value* out : src.outputs()) {
    auto it = map.find(out);
    g->AppendOutput(it != map.end() ? it->second : OuterValue(out, *g, outer));
  }
  for (Value* vi : src.value_infos()) {
    auto it = map.find(vi);
    if (it != map.end() && it->second->graph() == g.get()) g->AppendValueInfo(it->second);
  }
  g->quantization_annotation = src.quantization_annotation;
  return g;
}

Attribute CopyAttribute(const Attribute& a, Node* owner, const ValueMap& map, const AttributeBinder* bind) {
  Attribute c;
  c.name = a.name;
  c.kind = a.kind;
  c.kind_declared = a.kind_declared;
  c.ref_attr_name = a.ref_attr_name;
  c.doc_string = a.doc_string;
  c.f = a.f;
  c.i = a.i;
  c.s = a.s;
  c.t = a.t;
  c.sparse_tensor = a.sparse_tensor;
  c.tp = a.tp;
  c.floats = a.floats;
  c.ints = a.ints;
  c.strings = a.strings;
  c.tensors = a.tensors;
  c.sparse_tensors = a.sparse_tensors;
  c.type_protos = a.type_protos;
  c.has_g = a.has_g;
  for (const auto& g : a.graphs) c.graphs.push_back(CopyGraph(*g, owner->graph(), owner, map, bind));
  return c;
}

std::vector<Node*> CopyNodes(const std::vector<Node*>& nodes, Graph& dst, ValueMap& map, const AttributeBinder* bind) {
  std::vector<Node*> copies;
  copies.reserve(nodes.size());
  for (const Node* n : nodes) {
    std::vector<Value*> inputs(n->num_inputs(), nullptr);
    for (size_t i = 0; i < n->num_inputs(); ++i) {
      const Value* v = n->input(i);
      if (v == nullptr) continue;
      auto it = map.find(v);
      if (it == map.end())
        throw InternalError("copying node '" + n->name() + "': its input '" + v->name() + "' has no counterpart");
      inputs[i] = it->second;
    }
    std::vector<std::string> out_names;
    for (const Value* out : n->outputs()) out_names.push_back(out ? dst.FreshName(out->name()) : std::string());
    Node* c = dst.AddNodeWithOutputs(n->op_type(), n->domain(), n->name(), inputs, out_names);
    c->set_doc_string(n->doc_string());
    for (const auto& [k, v] : n->annotations()) c->SetAnnotation(k, v);
    // Subgraphs read outer values through `map` too: the copies made so far stand for their sources.
    for (const Attribute& a : n->attributes()) {
      if (!bind) {
        c->SetAttribute(CopyAttribute(a, c, map));
      } else if (std::optional<Attribute> b = bind->Bind(*n, a, c, map)) {
        c->SetAttribute(std::move(*b));
      }
    }
    for (size_t i = 0; i < n->num_outputs(); ++i) {
      if (const Value* out = n->output(i)) {
        CopyValueDetails(*out, *c->output(i));
        map[out] = c->output(i);
      }
    }
    copies.push_back(c);
  }
  return copies;
}

}  // namespace kiln
