#include "report/model_summary.h"

#include <map>
#include <sstream>

#include "ir/model.h"

namespace kiln {
namespace {

void CountOps(const Graph& g, std::map<std::string, int64_t>& hist) {
  for (const auto& n : g.nodes()) {
    hist[n->domain().empty() ? n->op_type() : n->domain() + "." + n->op_type()]++;
    for (const Graph* s : n->subgraphs()) CountOps(*s, hist);
  }
}

void CountInitializers(const Graph& g, int64_t& count, uint64_t& bytes) {
  for (const Value* v : g.initializers()) {
    ++count;
    bytes += v->initializer()->byte_size();
  }
  for (const auto& n : g.nodes())
    for (const Graph* s : n->subgraphs()) CountInitializers(*s, count, bytes);
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
  j["nodes_with_subgraphs"] = m.graph().CountNodes(true);
  std::map<std::string, int64_t> hist;
  CountOps(m.graph(), hist);
  j["op_types"] = hist;
  j["inputs"] = Io(m.graph().inputs());
  j["outputs"] = Io(m.graph().outputs());
  int64_t count = 0;
  uint64_t bytes = 0;
  CountInitializers(m.graph(), count, bytes);
  j["initializers"] = count;
  j["initializer_bytes"] = bytes;
  // Model-local functions with the nodes that call them (in any graph, subgraph or function body).
  std::map<const Function*, int64_t> calls;
  ForEachGraph(m, [&](const Graph& g) {
    for (const auto& n : g.nodes())
      if (const Function* f = m.CalledFunction(*n)) ++calls[f];
  });
  nlohmann::json functions = nlohmann::json::array();
  for (const auto& f : m.functions())
    functions.push_back({{"domain", f->domain()}, {"name", f->name()}, {"calls", calls[f.get()]},
                         {"nodes", f->body().CountNodes(true)}, {"inputs", f->body().inputs().size()},
                         {"outputs", f->body().outputs().size()}});
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
