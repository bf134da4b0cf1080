#include "report/model_summary.h"

#include <map>
#include <sstream>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/model.h"

namespace kiln {
namespace {

// What the summary counts of a graph tree, in one walk over its nodes (the report summarises the output of every
// compile, and a walk of a 1M-node graph costs tens of milliseconds). Op types are counted by their interned
// domain and name (Node::op_type_id), and made text once per distinct op type.
struct Counts {
  using OpKey = std::pair<const std::string*, const std::string*>;  // interned domain, op type
  struct OpKeyHash {
    size_t operator()(const OpKey& k) const {
      return std::hash<const void*>()(k.first) * 31 + std::hash<const void*>()(k.second);
    }
  };
  std::unordered_map<OpKey, int64_t, OpKeyHash> ops;
  int64_t nodes = 0, initializers = 0;
  uint64_t initializer_bytes = 0;
};

void CountTree(const Graph& g, Counts& c) {
  for (const Value* v : g.initializers()) {
    ++c.initializers;
    c.initializer_bytes += v->initializer()->byte_size();
  }
  for (const auto& n : g.nodes()) {
    ++c.nodes;
    ++c.ops[{&n->domain(), n->op_type_id()}];
    for (const Graph* s : n->subgraphs()) CountTree(*s, c);
  }
}

nlohmann::json Io(const std::vector<Value*>& values) {
  auto arr = nlohmann::json::array();
  for (const Value* v : values) arr.push_back({{"name", v->name()}, {"type", v->type().ToString()}});
  return arr;
}

}  // namespace

nlohmann::json ModelSummary(const Model& m) {
  nlohmann::json j;
  j["ir_version"] = m.ir_version;
  auto opsets = nlohmann::json::object();
  for (const auto& o : m.opset_imports) opsets[o.domain.empty() ? "ai.onnx" : o.domain] = o.version;
  j["opsets"] = opsets;
  if (m.producer_name) j["producer"] = *m.producer_name + (m.producer_version ? " " + *m.producer_version : "");
  j["nodes"] = m.graph().num_nodes();
  Counts main;
  CountTree(m.graph(), main);
  j["nodes_with_subgraphs"] = main.nodes;
  std::map<std::string, int64_t> hist;
  for (const auto& [key, n] : main.ops) hist[key.first->empty() ? *key.second : *key.first + "." + *key.second] += n;
  j["op_types"] = hist;
  j["inputs"] = Io(m.graph().inputs());
  j["outputs"] = Io(m.graph().outputs());
  j["initializers"] = main.initializers;
  j["initializer_bytes"] = main.initializer_bytes;
  // Model-local functions with the nodes that call them (in any graph, subgraph or function body).
  std::map<const Function*, int64_t> calls;
  auto count_calls = [&](const Counts& c) {
    for (const auto& [key, n] : c.ops)
      if (const Function* f = m.FindFunction(*key.first, *key.second)) calls[f] += n;
  };
  count_calls(main);
  std::vector<std::pair<const Function*, int64_t>> bodies;  // each function with its body's node count
  for (const auto& f : m.functions()) {
    Counts body;
    CountTree(f->body(), body);
    count_calls(body);
    bodies.emplace_back(f.get(), body.nodes);
  }
  nlohmann::json functions = nlohmann::json::array();
  for (const auto& [f, nodes] : bodies)
    functions.push_back({{"domain", f->domain()}, {"name", f->name()}, {"calls", calls[f]}, {"nodes", nodes},
                         {"inputs", f->body().inputs().size()}, {"outputs", f->body().outputs().size()}});
  j["functions"] = std::move(functions);
  return j;
}

std::string ModelSummaryText(const nlohmann::json& j) {
  std::ostringstream o;
  o << "ir_version: " << j["ir_version"] << "\nopsets:";
  for (const auto& [d, v] : j["opsets"].items()) o << " " << d << "=" << v;
  o << "\nnodes: " << j["nodes"] << " (" << j["nodes_with_subgraphs"] << " with subgraphs)\n";
  o << "initializers: " << j["initializers"] << " (" << j["initializer_bytes"] << " bytes)\n";
  for (const char* side : {"inputs", "outputs"}) {
    o << side << ":\n";
    for (const auto& v : j[side]) o << "  " << v["name"].get<std::string>() << ": " << v["type"].get<std::string>() << "\n";
  }
  o << "op types:\n";
  for (const auto& [op, n] : j["op_types"].items()) o << "  " << op << ": " << n << "\n";
  if (!j["functions"].empty()) {
    o << "functions:\n";
    for (const auto& f : j["functions"])
      o << "  " << f["domain"].get<std::string>() << "." << f["name"].get<std::string>() << ": " << f["calls"]
        << (f["calls"] == 1 ? " call, " : " calls, ") << f["nodes"] << " nodes, " << f["inputs"] << " inputs, "
        << f["outputs"] << " outputs\n";
  }
  return o.str();
}

}  // namespace kiln
