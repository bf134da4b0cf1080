#include "ir/model.h"

namespace kiln {

Model::Model() : graph_(std::make_unique<Graph>(this, nullptr, nullptr)) {}

Model::~Model() = default;

std::optional<int64_t> Model::OpsetVersion(std::string_view domain) const {
  auto norm = [](std::string_view d) { return d == "ai.onnx" ? std::string_view() : d; };
  for (const OpsetImport& o : opset_imports)
    if (norm(o.domain) == norm(domain)) return o.version;
  return std::nullopt;
}

void Model::CollectGarbage() {
  if (journal_.active()) return;
  dead_nodes_.clear();
  dead_values_.clear();
}

namespace {

void CollectNames(const Graph& g, std::unordered_set<std::string>& out) {
  for (const Value* v : g.values()) out.insert(v->name());
  for (const auto& n : g.nodes())
    for (const Graph* sub : n->subgraphs()) CollectNames(*sub, out);
}

}  // namespace

bool Model::IsNameUsed(std::string_view n) {
  if (!names_built_) {
    CollectNames(*graph_, names_);
    names_built_ = true;
  }
  return names_.count(std::string(n)) != 0;
}

std::string Model::FreshName(std::string_view hint) {
  std::string base(hint.empty() ? std::string_view("v") : hint);
  if (!IsNameUsed(base)) {
    names_.insert(base);
    return base;
  }
  for (;;) {
    std::string candidate = base + "__" + std::to_string(++fresh_counter_);
    if (!IsNameUsed(candidate)) {
      names_.insert(candidate);
      return candidate;
    }
  }
}

void Model::Bury(std::list<std::unique_ptr<Node>>& from, std::list<std::unique_ptr<Node>>::iterator it) {
  dead_nodes_.splice(dead_nodes_.end(), from, it);
}

void Model::Bury(std::list<std::unique_ptr<Value>>& from, std::list<std::unique_ptr<Value>>::iterator it) {
  dead_values_.splice(dead_values_.end(), from, it);
}

}  // namespace kiln
