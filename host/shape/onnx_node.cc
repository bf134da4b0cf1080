// SchemaOf and NodeProtoOf: see onnx_node.h.
#include "shape/onnx_node.h"

#include <string>
#include <unordered_map>

#include "ir/graph.h"
#include "ir/model.h"
#include "ir/node.h"
#include "onnx/annotations_key.h"
#include "onnx/proto_convert.h"
#include "shape/schema_registry.h"

namespace kiln {

const onnx::OpSchema* SchemaOf(const Node& n) {
  const Model* m = n.graph()->model();
  const std::string& domain = n.domain() == "ai.onnx" ? std::string() : n.domain();
  std::optional<int64_t> version = m->OpsetVersion(domain);
  if (!version || m->CalledFunction(n) != nullptr) return nullptr;
  // Schemas never move once registered; an absent one is not remembered (a plugin may register it later).
  static std::unordered_map<std::string, const onnx::OpSchema*> cache;
  std::string key = domain;
  key += '\0';
  key += n.op_type();
  key += '\0';
  key += std::to_string(*version);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  const onnx::OpSchema* s = FindOnnxSchema(n.op_type(), static_cast<int>(*version), domain);
  if (s != nullptr) cache.emplace(std::move(key), s);
  return s;
}

onnx::NodeProto NodeProtoOf(const Node& n) {
  // Schema functions only tell present slots from absent ones by the name: short stand-ins save copying names.
  onnx::NodeProto p;
  for (const Value* in : n.inputs()) p.add_input(in ? "x" : "");
  for (const Value* out : n.outputs()) p.add_output(out ? "y" : "");
  p.set_op_type(n.op_type());
  if (!n.domain().empty()) p.set_domain(n.domain());
  if (!n.name().empty()) p.set_name(n.name());
  for (const Attribute& a : n.attributes()) {
    if (IsTemporaryMark(a.name)) continue;
    onnx::AttributeProto* ap = p.add_attribute();
    AttributeValueToProto(a, ap);
    auto outline = [](const Graph& g, onnx::GraphProto* gp) {
      gp->set_name(g.name());
      for (const Value* v : g.inputs()) {
        auto* vi = gp->add_input();
        vi->set_name(v->name());
        if (v->type().kind != Type::Kind::kNone) TypeToProto(v->type(), vi->mutable_type());
      }
      for (const Value* v : g.outputs()) {
        auto* vi = gp->add_output();
        vi->set_name(v->name());
        if (v->type().kind != Type::Kind::kNone) TypeToProto(v->type(), vi->mutable_type());
      }
    };
    if (a.has_g && !a.graphs.empty()) outline(*a.graphs[0], ap->mutable_g());
    for (size_t i = a.has_g ? 1 : 0; i < a.graphs.size(); ++i) outline(*a.graphs[i], ap->add_graphs());
  }
  return p;
}

}  // namespace kiln
