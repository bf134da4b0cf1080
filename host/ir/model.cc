#include "ir/model.h"

#include <limits>
#include <unordered_set>

#include "support/error.h"

namespace kiln {

uint64_t Model::NextNodeId() {
  if (next_node_id_ > std::numeric_limits<uint32_t>::max())
    throw InternalError("this model has made " + std::to_string(next_node_id_ - 1) +
                        " nodes, the most a node's 32-bit id can number");
  return next_node_id_++;
}

void ForEachValueName(const Graph& g, const std::function<void(std::string_view)>& add) {
  ForEachGraphIn(g, [&](const Graph& sub) {
    for (const auto& v : sub.value_list())
      if (!v->name().empty()) add(v->name());
  });
}

std::optional<bool> HoldsValueNamed(const Graph& g, std::string_view name) {
  if (g.subgraph_holders() > 0) return std::nullopt;
  return g.FindValue(name) != nullptr;
}

namespace {

std::string_view NormalDomain(std::string_view d) { return d == "ai.onnx" ? std::string_view() : d; }

}  // namespace

Model::Model()
    : graph_(std::make_unique<Graph>(this, nullptr, nullptr)),
      names_([this](const std::function<void(std::string_view)>& add) { ForEachValueName(*graph_, add); },
             [this](std::string_view name) { return HoldsValueNamed(*graph_, name); }) {}

Model::~Model() = default;

std::optional<int64_t> Model::OpsetVersion(std::string_view domain) const {
  for (const OpsetImport& o : opset_imports)
    if (NormalDomain(o.domain) == NormalDomain(domain)) return o.version;
  return std::nullopt;
}

bool Model::EnsureOpset(const std::string& domain, int64_t version) {
  if (OpsetVersion(domain)) return false;
  opset_imports.push_back({domain, version});
  if (journal_.active()) journal_.Record([this] { opset_imports.pop_back(); });
  return true;
}

void Model::CollectGarbage(bool within_pass) {
  if (journal_.active()) return;
  if (within_pass)
    std::erase_if(canonical_index_, [](const auto& entry) { return entry.second->is_deleted(); });
  else
    canonical_index_.clear();
  call_instance_data_.reset();
  if (dead_nodes_.empty() && dead_values_.empty() && dead_functions_.empty() && dead_graphs_.empty() &&
      !analyses_carried_over)
    return;
  // Walking every graph after every pass shows on a large model: with nothing to free and nothing carried over,
  // the cached analyses are current or staled by their structure stamps, and no freed address can come back.
  // The model's own graphs: the holes of removed nodes and values close up here, between passes, where no loop
  // over a graph's nodes runs (OwnerList).
  ForEachGraph(*this, [within_pass](const Graph& g) {
    g.ClearAnalyses();
    if (!within_pass) const_cast<Graph&>(g).CompactLists();
  });
  analyses_carried_over = false;
  // Removed values leave their value_info and initializer entries behind (Graph::RemoveValue); they go before the
  // values do, and before the dead nodes take their subgraphs with them.
  std::unordered_set<Graph*> listed, initialized;
  for (const auto& v : dead_values_) {
    if (v->in_value_info_) listed.insert(v->graph());
    if (v->initializer()) initialized.insert(v->graph());
  }
  for (Graph* g : listed) std::erase_if(g->value_infos_, [](const Value* v) { return v->is_deleted(); });
  for (Graph* g : initialized) g->DropRemovedInitializers();
  if (node_index_built_ && !dead_nodes_.empty()) {
    for (const auto& n : dead_nodes_) node_index_.erase(n->id());
  }
  dead_nodes_.clear();
  dead_values_.clear();
  dead_functions_.clear();
  dead_graphs_.clear();
}

void Model::BuryGraphs(std::vector<std::unique_ptr<Graph>>&& graphs) {
  for (auto& g : graphs) dead_graphs_.push_back(std::move(g));
  graphs.clear();
}

namespace {

// The entry of `dead` holding `x`, taken out. A rollback takes things back newest first: it is the last one.
template <typename T>
std::unique_ptr<T> TakeBack(std::vector<std::unique_ptr<T>>& dead, const T* x, const char* what) {
  for (auto it = dead.rbegin(); it != dead.rend(); ++it)
    if (it->get() == x) {
      std::unique_ptr<T> back = std::move(*it);
      dead.erase(std::next(it).base());
      return back;
    }
  throw InternalError(std::string("Unbury: ") + what + " '" + x->name() + "' is not among the removed ones");
}

}  // namespace

void Model::Bury(std::unique_ptr<Node> n) { dead_nodes_.push_back(std::move(n)); }
std::unique_ptr<Node> Model::Unbury(const Node* n) { return TakeBack(dead_nodes_, n, "node"); }

void Model::Bury(std::unique_ptr<Value> v) { dead_values_.push_back(std::move(v)); }

std::unique_ptr<Value> Model::Unbury(const Value* v) { return TakeBack(dead_values_, v, "value"); }

// ---- functions

std::string Model::FunctionKey(std::string_view domain, std::string_view name) {
  std::string key(NormalDomain(domain));
  key += '\x1f';
  key += name;
  return key;
}

Function* Model::FindFunction(std::string_view domain, std::string_view name) const {
  if (function_index_.empty()) return nullptr;
  auto it = function_index_.find(FunctionKey(domain, name));
  return it == function_index_.end() ? nullptr : it->second;
}

Function* Model::AddFunction(std::string domain, std::string name) {
  if (FindFunction(domain, name))
    throw InternalError("a function '" + name + "' of domain '" + domain + "' already exists");
  auto owned = std::make_unique<Function>(this, std::move(domain), std::move(name));
  Function* f = owned.get();
  functions_.push_back(std::move(owned));
  f->self_ = std::prev(functions_.end());
  function_index_[FunctionKey(f->domain(), f->name())] = f;
  ++function_changes_;
  if (journal_.active()) journal_.Record([this, f] { RemoveFunction(f); });
  return f;
}

void Model::RemoveFunction(Function* f) {
  if (f->deleted_) return;
  auto next = std::next(f->self_);
  function_index_.erase(FunctionKey(f->domain(), f->name()));
  dead_functions_.splice(dead_functions_.end(), functions_, f->self_);
  f->deleted_ = true;
  ++function_changes_;
  if (journal_.active()) {
    // Undo steps run newest first, so whatever followed `f` is back in place when this runs.
    journal_.Record([this, f, next] {
      functions_.splice(next, dead_functions_, f->self_);
      f->deleted_ = false;
      function_index_[FunctionKey(f->domain(), f->name())] = f;
      ++function_changes_;
    });
  }
}

void Model::RenameFunction(Function* f, std::string name) {
  if (name == f->name_) return;
  if (FindFunction(f->domain(), name))
    throw InternalError("a function '" + name + "' of domain '" + f->domain() + "' already exists");
  std::string old = f->name_;
  function_index_.erase(FunctionKey(f->domain(), old));
  f->name_ = std::move(name);
  function_index_[FunctionKey(f->domain(), f->name_)] = f;
  ++function_changes_;
  if (journal_.active()) journal_.Record([this, f, old] { RenameFunction(f, old); });
}

std::vector<Node*> Model::CallsOf(const Function& f) const {
  std::vector<Node*> out;
  ForEachGraph(*this, [&](const Graph& g) {
    for (const auto& n : g.nodes())
      if (n->op_type() == f.name() && NormalDomain(n->domain()) == NormalDomain(f.domain())) out.push_back(n.get());
  });
  return out;
}

// ---- node ids

void Model::NoteNewNode(Node* n) {
  if (node_index_built_) node_index_[n->id()] = n;
}

Node* Model::FindNode(uint64_t id) {
  if (!node_index_built_) {
    ForEachGraph(*this, [&](const Graph& g) {
      for (const auto& n : g.nodes()) node_index_[n->id()] = n.get();
    });
    node_index_built_ = true;
  }
  auto it = node_index_.find(id);
  if (it == node_index_.end() || it->second->is_deleted()) return nullptr;
  return it->second;
}

}  // namespace kiln
