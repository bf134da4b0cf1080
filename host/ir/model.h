// A model: the top graph plus ONNX's model-level fields (IR version, opset imports, metadata, model-local
// functions, training info), and the model-wide bookkeeping the IR needs: node ids, the main graph's name set,
// the undo journal and the nodes, values and functions removed while a transaction was open.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/function.h"
#include "ir/graph.h"
#include "ir/journal.h"
#include "ir/name_arena.h"
#include "ir/name_set.h"
#include "ir/opset_import.h"
#include "ir/type_table.h"

namespace kiln {


class Model {
 public:
  Model();
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  Graph& graph() { return *graph_; }
  const Graph& graph() const { return *graph_; }

  int64_t ir_version = 8;
  std::vector<OpsetImport> opset_imports;
  std::optional<std::string> producer_name, producer_version, domain, doc_string;
  std::optional<int64_t> model_version;
  std::vector<std::pair<std::string, std::string>> metadata_props;
  // Training info, kept as serialized protobuf messages in their original order.
  std::vector<std::string> training_info;
  // Where the model was read from; external-data locations are relative to its directory.
  std::string source_path;

  // The opset version imported for a domain ("" and "ai.onnx" are the same), or nullopt.
  std::optional<int64_t> OpsetVersion(std::string_view domain) const;
  // Imports `domain` at `version` when the model does not import it (journaled); returns whether it did.
  bool EnsureOpset(const std::string& domain, int64_t version);

  // ---- model-local functions, in declaration order
  const std::list<std::unique_ptr<Function>>& functions() const { return functions_; }
  size_t num_functions() const { return functions_.size(); }
  // The function of that domain ("ai.onnx" reads as "") and name, or null.
  Function* FindFunction(std::string_view domain, std::string_view name) const;
  // The function node `n` calls, or null when it is not a call.
  Function* CalledFunction(const Node& n) const { return FindFunction(n.domain(), n.op_type()); }
  // A new function with an empty body (journaled). Throws InternalError when the (domain, name) is taken.
  Function* AddFunction(std::string domain, std::string name);
  // Removes a function (journaled). Its calls, if any are left, become calls of nothing: check CountCalls first.
  void RemoveFunction(Function* f);
  // Renames a function (journaled); its calls keep the old op type (rename them too).
  void RenameFunction(Function* f, std::string name);
  // Nodes of the model (main graph, subgraphs, function bodies) that call `f`.
  std::vector<Node*> CallsOf(const Function& f) const;
  // Functions by canonical form (canonical_form.h), for Outline's body reuse: a hint, checked on every hit.
  std::unordered_map<std::string, Function*>& canonical_index() { return canonical_index_; }

  // The live node with this id anywhere in the model, or null.
  Node* FindNode(uint64_t id);

  Journal& journal() { return journal_; }
  // The distinct types of the model's values (Value::type points into it).
  TypeTable& types() { return types_; }
  // Frees nodes, values and functions removed so far, and drops every graph's cached analyses (which may point at
  // them, or were kept current by a pass that declared them preserved); with neither, the analyses stay (a change
  // bumps its graph's structure version, which stales them). Only call when no pointer to what is freed is held
  // and no transaction is open. What a pass kept for itself (canonical_index, the typed call instances) goes too,
  // except `within_pass` (a checkpoint of a running pass: pass_checkpoint), where the body index keeps what still
  // lives, so the pass reuses the bodies it outlined before the checkpoint as it would without one.
  void CollectGarbage(bool within_pass = false);

  // The analyses the running pass declares it keeps valid (KILN_ANALYSIS_* bits; see Graph::BumpStructure).
  uint32_t preserved_analyses = 0;
  // Set by Graph::BumpStructure when a change kept an analysis current because the pass declared it preserved:
  // CollectGarbage then drops every cached analysis even with nothing to free, so that what a pass kept for itself
  // does not outlive it.
  bool analyses_carried_over = false;
  // The process's rollback count (Journal::RollbackCount) when shape inference last ran on this model.
  uint64_t shape_inference_rollbacks = ~0ull;
  // What host/shape/call_instance.cc keeps between questions (typed instances of calls); CollectGarbage drops it.
  std::shared_ptr<void>& call_instance_data() { return call_instance_data_; }

  // ---- internal bookkeeping used by Graph and Node
  // Ids are 32-bit in a node: a model that has made 2^32 - 1 nodes makes no more (an InternalError).
  uint64_t NextNodeId();
  void NoteNewNode(Node* n);
  int64_t insertion_order = 0;  // order hint given to new nodes (the driver sets it to the node being visited)
  // The main graph tree's names (see name_set.h); Graph::names() finds the right set for any graph.
  NameSet& names() { return names_; }
  // Where the model's value and node names keep their text (name_arena.h): valid for the model's life.
  NameArena& name_arena() { return name_arena_; }
  // Whether any value of the main graph tree has this name; a fresh such name.
  bool IsNameUsed(std::string_view n) { return names_.Contains(n); }
  std::string FreshName(std::string_view hint) { return names_.Fresh(hint); }
  void Bury(std::unique_ptr<Node> n);
  // Takes back a node buried since the last CollectGarbage (a rollback restoring it).
  std::unique_ptr<Node> Unbury(const Node* n);
  void Bury(std::unique_ptr<Value> v);
  // Takes back a value buried since the last CollectGarbage (a rollback restoring it).
  std::unique_ptr<Value> Unbury(const Value* v);
  // Keeps graphs an undo step discards (a graph attribute set in the transaction) until CollectGarbage: the steps
  // that built them, recorded earlier, run after it and still refer to them.
  void BuryGraphs(std::vector<std::unique_ptr<Graph>>&& graphs);
  const std::vector<std::unique_ptr<Node>>& dead_nodes() const { return dead_nodes_; }
  const std::vector<std::unique_ptr<Value>>& dead_values() const { return dead_values_; }
  // Changes since creation to the set of functions (for the plugin adapter's change stamp).
  uint64_t function_changes() const { return function_changes_; }

 private:
  static std::string FunctionKey(std::string_view domain, std::string_view name);

  TypeTable types_;  // first: destroyed after the graphs whose values point into it
  NameArena name_arena_;  // likewise, for the names of its values and nodes
  std::unique_ptr<Graph> graph_;
  Journal journal_;
  uint64_t next_node_id_ = 1;
  NameSet names_;
  std::vector<std::unique_ptr<Node>> dead_nodes_;
  std::vector<std::unique_ptr<Value>> dead_values_;
  std::vector<std::unique_ptr<Graph>> dead_graphs_;  // freed last: dead values and nodes may belong to them
  std::list<std::unique_ptr<Function>> functions_, dead_functions_;
  std::unordered_map<std::string, Function*> function_index_, canonical_index_;
  std::unordered_map<uint64_t, Node*> node_index_;
  bool node_index_built_ = false;
  uint64_t function_changes_ = 0;
  std::shared_ptr<void> call_instance_data_;
};

// Calls fn(graph) for the main graph, every function body, and every subgraph of theirs at any depth.
template <typename Fn>
void ForEachGraph(const Model& m, Fn&& fn);
// Calls add(name) for every named value of `g` and of its subgraphs: what a naming scope tree holds (NameSet).
void ForEachValueName(const Graph& g, const std::function<void(std::string_view)>& add);
// Whether a value of `g` holds `name`, from its values by name, where `g` has no subgraphs; nullopt where it has
// (NameSet's Holds: the tree's names are then more than g's).
std::optional<bool> HoldsValueNamed(const Graph& g, std::string_view name);
// Calls fn(graph) for `g` and every subgraph of it at any depth.
template <typename Fn>
void ForEachGraphIn(const Graph& g, Fn&& fn) {
  fn(g);
  if (!g.holds_subgraphs()) return;
  for (const auto& n : g.nodes())
    for (const Graph* sub : n->subgraphs()) ForEachGraphIn(*sub, fn);
}
template <typename Fn>
void ForEachGraph(const Model& m, Fn&& fn) {
  ForEachGraphIn(m.graph(), fn);
  for (const auto& f : m.functions()) ForEachGraphIn(f->body(), fn);
}

}  // namespace kiln
