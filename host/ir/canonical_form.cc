#include "ir/canonical_form.h"

#include <cstring>
#include <unordered_map>

#include "ir/function.h"
#include "ir/graph.h"
#include "ir/topo_order.h"

namespace kiln {
namespace {

class Writer {
 public:
  std::string out;

  void Graph(const kiln::Graph& g) {
    std::unordered_map<const Value*, size_t> ids;
    auto id_of = [&](const Value* v) -> std::string {
      if (v == nullptr) return "_";
      auto it = ids.find(v);
      if (it != ids.end()) return "%" + std::to_string(it->second);
      return "@" + v->name();  // an outer value: by name
    };
    auto define = [&](const Value* v) { ids.emplace(v, ids.size()); };
    out += "(";
    for (const Value* in : g.inputs()) {
      define(in);
      out += id_of(in) + ",";
    }
    out += ")";
    for (const Value* init : g.initializers()) {
      define(init);
      Tensor(*init->initializer());
    }
    out += "{";
    for (const Node* n : TopologicalOrder(g).order) {
      out += n->domain() + "." + n->op_type() + "(";
      for (const Value* in : n->inputs()) out += id_of(in) + ",";
      out += ")[";
      for (const Attribute& a : n->attributes()) Attr(a);
      out += "]->";
      for (const Value* o : n->outputs()) {
        if (o) define(o);
        out += id_of(o) + ",";
      }
      out += ";";
    }
    out += "}=>(";
    for (const Value* o : g.outputs()) out += id_of(o) + ",";
    out += ")";
  }

  void Bytes(const void* p, size_t n) {
    out += std::to_string(n) + ":";
    out.append(static_cast<const char*>(p), n);
  }
  void Tensor(const kiln::Tensor& t) {
    out += "T" + std::to_string(static_cast<int>(t.type())) + "[";
    for (int64_t d : t.dims()) out += std::to_string(d) + ",";
    out += "]";
    auto b = t.raw_bytes();
    Bytes(b.data(), b.size());
    for (const auto& s : t.strings()) Bytes(s.data(), s.size());
  }
  void Attr(const Attribute& a) {
    out += a.name + "=" + std::to_string(static_cast<int>(a.kind));
    if (!a.ref_attr_name.empty()) {
      out += "&" + a.ref_attr_name + ";";
      return;
    }
    if (a.f) Bytes(&*a.f, sizeof(float));
    if (a.i) out += "i" + std::to_string(*a.i);
    if (a.s) Bytes(a.s->data(), a.s->size());
    if (a.t) Tensor(*a.t);
    for (int64_t v : a.ints) out += std::to_string(v) + ",";
    if (!a.floats.empty()) Bytes(a.floats.data(), a.floats.size() * sizeof(float));
    for (const auto& s : a.strings) Bytes(s.data(), s.size());
    for (const auto& t : a.tensors) Tensor(t);
    if (a.tp) out += a.tp->ToString();
    for (const auto& g : a.graphs) Graph(*g);
    out += ";";
  }
};

}  // namespace

void AppendCanonicalAttribute(std::string& out, const Attribute& a) {
  Writer w;
  w.out = std::move(out);
  w.Attr(a);
  out = std::move(w.out);
}

void AppendCanonicalTensor(std::string& out, const Tensor& t) {
  Writer w;
  w.out = std::move(out);
  w.Tensor(t);
  out = std::move(w.out);
}

std::string CanonicalGraphForm(const Graph& g) {
  Writer w;
  w.Graph(g);
  return std::move(w.out);
}

std::string CanonicalFunctionForm(const Function& f) {
  Writer w;
  w.out = f.domain() + "|";
  for (const std::string& a : f.attribute_names()) w.out += a + ",";
  w.out += "|";
  w.Graph(f.body());
  return std::move(w.out);
}

}  // namespace kiln
