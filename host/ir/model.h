// A model: the top graph plus ONNX's model-level fields (IR version, opset imports, metadata, model-local
// functions, training info), and the model-wide bookkeeping the IR needs: node ids, the name set, the undo
// journal and the nodes and values removed while a transaction was open.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "ir/journal.h"

namespace kiln {

struct OpsetImport {
  std::string domain;
  int64_t version = 0;
  bool operator==(const OpsetImport&) const = default;
};

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
  // Model-local functions and training info, kept as serialized protobuf messages in their original order.
  std::vector<std::string> functions;
  std::vector<std::string> training_info;
  // Where the model was read from; external-data locations are relative to its directory.
  std::string source_path;

  // The opset version imported for a domain ("" and "ai.onnx" are the same), or nullopt.
  std::optional<int64_t> OpsetVersion(std::string_view domain) const;

  Journal& journal() { return journal_; }
  // Frees nodes and values removed so far. Only call when no pointer to them is held and no transaction is open.
  void CollectGarbage();

  // ---- internal bookkeeping used by Graph and Node
  uint64_t NextNodeId() { return next_node_id_++; }
  int64_t insertion_order = 0;  // order hint given to new nodes (the driver sets it to the node being visited)
  // Whether any value of any graph has this name. The name set is built on first use (a compile that makes no
  // new names never pays for it) and kept up to date from then on.
  bool IsNameUsed(std::string_view n);
  void NoteName(const std::string& n) {
    if (names_built_) names_.insert(n);
  }
  std::string FreshName(std::string_view hint);
  void Bury(std::list<std::unique_ptr<Node>>& from, std::list<std::unique_ptr<Node>>::iterator it);
  void Bury(std::list<std::unique_ptr<Value>>& from, std::list<std::unique_ptr<Value>>::iterator it);
  std::list<std::unique_ptr<Node>>& dead_nodes() { return dead_nodes_; }
  std::list<std::unique_ptr<Value>>& dead_values() { return dead_values_; }

 private:
  std::unique_ptr<Graph> graph_;
  Journal journal_;
  uint64_t next_node_id_ = 1;
  uint64_t fresh_counter_ = 0;
  std::unordered_set<std::string> names_;
  bool names_built_ = false;
  std::list<std::unique_ptr<Node>> dead_nodes_;
  std::list<std::unique_ptr<Value>> dead_values_;
};

}  // namespace kiln
