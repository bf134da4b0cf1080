// A graph: nodes, values and initializers, its declared inputs and outputs, and the links to its enclosing
// scope when it is a subgraph (If/Loop/Scan bodies). A subgraph node may read a value of any enclosing graph;
// that read is recorded as a use on the outer value.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/node.h"
#include "ir/owner_list.h"
#include "ir/value.h"
#include "ir/value_index.h"

namespace kiln {

class Function;
class Model;
class NameSet;

// ONNX's TensorAnnotation (quantization parameters attached to a tensor name), kept for round trips.
struct TensorAnnotation {
  std::string tensor_name;
  std::vector<std::pair<std::string, std::string>> quant_parameter_tensor_names;
};

class Graph {
 public:
  Graph(Model* model, Graph* parent, Node* owner_node);
  // A function's body: no parent, no owner node.
  Graph(Model* model, Function* function);
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  Model* model() const { return model_; }
  Graph* parent() const { return parent_; }
  Node* owner_node() const { return owner_node_; }
  // The function whose body this graph is (null for the main graph and for subgraphs of nodes).
  Function* function() const { return function_; }
  // The outermost graph of this one's scope chain: the main graph or a function body.
  const Graph* root() const;
  // The naming scope of the root (the model's, or the function's).
  NameSet& names() const;
  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }
  const std::string& doc_string() const { return doc_string_; }
  void set_doc_string(std::string d) { doc_string_ = std::move(d); }

  // ---- nodes
  // Nodes in storage order (not necessarily topological; see TopologicalOrder in topo_order.h).
  const NodeList& nodes() const { return nodes_; }
  size_t num_nodes() const { return nodes_.size(); }
  // Creates a node with `num_outputs` fresh output values named after `name` (or the op type).
  Node* AddNode(std::string op_type, std::vector<Value*> inputs, size_t num_outputs, std::string name = {},
                std::string domain = {});
  // Creates a node whose outputs get exactly these names ("" leaves an absent optional output).
  Node* AddNodeWithOutputs(std::string op_type, std::string domain, std::string name, std::vector<Value*> inputs,
                           const std::vector<std::string>& output_names);
  // Removes a node and its outputs. Every output must be unused (rewire consumers first); throws otherwise.
  void RemoveNode(Node* n);

  // Makes `order` (every node of this graph once, in a topological order: the caller checks) the order in which
  // TopologicalOrder lists them and export writes them, by setting the nodes' position hints. Journaled.
  void SetNodeOrder(const std::vector<Node*>& order);
  // Closes up the holes removed nodes and values left, keeping the order (Model::CollectGarbage: between passes).
  void CompactLists();

  // ---- values
  Value* FindValue(std::string_view name) const;  // this scope only
  Value* LookupValue(std::string_view name) const;  // this scope, then enclosing scopes
  std::vector<Value*> values() const;
  // The same without a copy (a loop that adds values meets them; see OwnerList).
  const OwnerList<Value>& value_list() const { return values_; }
  // Makes room for `n` more named values (import knows the count up front).
  void ReserveValues(size_t n);
  // A value with no producer that is not a graph input: only for value_info entries that name nothing.
  Value* AddValue(std::string name) { return NewValue(std::move(name)); }
  // Rewires every consumer of `from` (in this graph and in subgraphs) and every graph output to `to`.
  void ReplaceAllUsesWith(Value* from, Value* to);
  // ReplaceAllUsesWith that keeps a graph output's name: when `from` is an output of its graph and `to` is a node's
  // output of the same graph that is not a graph output yet, `to` takes from's name (from gets a fresh one), so
  // the graph's interface does not change. Otherwise as ReplaceAllUsesWith.
  void ReplaceValue(Value* from, Value* to);
  // Removes a value with no producer and no uses (an unused initializer or graph input).
  void RemoveValue(Value* v);
  // Renames a value (journaled). The new name must be free in this graph; the caller keeps it unique where ONNX
  // wants it so (Model-wide for the main graph tree).
  void RenameValue(Value* v, std::string name);
  // Makes `v`, a value of this graph, output `slot` of `to` (a node of this graph), keeping its name, type,
  // readers and graph-output places: its old producer (if any) gets a fresh unused value in its slot, and `to`'s
  // value in that slot, which must be unused, is removed. Journaled. With `leave_empty`, the old producer's slot
  // becomes an absent output instead (for a producer about to be removed).
  void TransferOutput(Node* to, size_t slot, Value* v, bool leave_empty = false);

  // ---- graph inputs, outputs, value infos
  const std::vector<Value*>& inputs() const { return inputs_; }
  const std::vector<Value*>& outputs() const { return outputs_; }
  Value* AddInput(std::string name, Type type);
  // Declares an existing value a graph input (IR < 4 models list initializers as inputs too).
  void AppendInput(Value* v);
  void RemoveInput(size_t i);
  void AppendOutput(Value* v);
  void SetOutput(size_t i, Value* v);
  void RemoveOutput(size_t i);
  // The values the model declared in value_info, in order. Until Model::CollectGarbage it may hold removed values
  // (is_deleted()): skip those.
  const std::vector<Value*>& value_infos() const { return value_infos_; }
  void AppendValueInfo(Value* v);

  // ---- initializers (in declaration order)
  const std::vector<Value*>& initializers() const;
  // A new value holding `t`, named t.name() or a fresh name when that is empty or taken.
  Value* AddInitializer(Tensor t);
  // A new initializer value named exactly `name`, which must be free in this graph (import). The value holds the
  // name: `t` keeps none.
  Value* AddInitializerNamed(std::string name, Tensor t);
  // The same for a tensor already shared (the importer keeps small weights' tensors in one block); it should hold
  // no name of its own.
  Value* AddInitializerNamed(std::string name, std::shared_ptr<const Tensor> t);
  // Makes `v` (which has no producer) an initializer holding `t`, or replaces its data.
  void SetInitializer(Value* v, std::shared_ptr<const Tensor> t);
  // Turns a node's output into an initializer holding `t`, keeping its name and consumers; the node gets a fresh
  // unused value in that output slot.
  void ConvertToInitializer(Value* node_output, std::shared_ptr<const Tensor> t);
  const std::vector<Value*>& sparse_initializers() const { return sparse_initializers_; }
  Value* AddSparseInitializer(SparseTensor t);
  std::vector<TensorAnnotation> quantization_annotation;

  // ---- helpers
  // A name unused anywhere in the model, made from `hint`.
  std::string FreshName(std::string_view hint) const;
  // Node count here and, optionally, inside every subgraph.
  size_t CountNodes(bool include_subgraphs) const;
  // Whether a node of this graph holds a subgraph (an If, a Loop...): kept as a count by node removal and attribute
  // changes, so that a walk of the graph tree skips the nodes of a graph that has none (most, and the largest).
  bool holds_subgraphs() const { return subgraph_holders_ > 0; }
  size_t subgraph_holders() const { return subgraph_holders_; }
  // The node of this graph that is, or contains, `n` (null when `n` is outside this graph).
  Node* AncestorIn(Node* n) const;
  // True when `v` belongs to this graph or an enclosing one.
  bool IsVisible(const Value* v) const;

  // ---- host analyses (host/analysis): a counter of structural changes (nodes added or removed, inputs rewired,
  // graph inputs and outputs changed), bumped on this graph and every enclosing one, and the analyses' cached
  // results with the counter value each was computed at. A change made while the running pass declares an
  // analysis preserved (Model::preserved_analyses) keeps that analysis's stamp current.
  uint64_t structure_version() const { return structure_version_; }
  static constexpr int kAnalysisKinds = 4;  // topological order, dominators, post-dominators, reachability
  uint64_t analysis_stamp(int kind) const { return analysis_stamps_[kind]; }
  void set_analysis_stamp(int kind, uint64_t v) const { analysis_stamps_[kind] = v; }
  std::shared_ptr<void>& analysis_data() const { return analysis_data_; }
  void ClearAnalyses() const;
  void BumpStructure();

 private:
  friend class Node;
  friend class Model;
  Value* NewValue(std::string name);
  // Insert into or remove from inputs_ or outputs_ (`list`), keeping the value's count of listings in that list.
  void RemoveFromList(std::vector<Value*>& list, size_t i);
  void InsertIntoList(std::vector<Value*>& list, size_t i, Value* v);
  uint16_t& ListingsOf(const std::vector<Value*>& list, Value* v) const;

  Model* model_;
  Graph* parent_;
  Node* owner_node_;
  Function* function_ = nullptr;
  uint64_t structure_version_ = 0;
  size_t subgraph_holders_ = 0;  // live nodes with has_subgraphs() (Node::EditAttributes, RemoveNode)
  mutable uint64_t analysis_stamps_[kAnalysisKinds] = {~0ull, ~0ull, ~0ull, ~0ull};
  mutable std::shared_ptr<void> analysis_data_;
  std::string name_, doc_string_;
  NodeList nodes_;
  OwnerList<Value> values_;  // in creation order; values() copies them out
  ValueIndex by_name_;
  std::vector<Value*> inputs_, outputs_, value_infos_, sparse_initializers_;
  // RemoveValue leaves a removed initializer's entry in place and counts it; initializers() drops those entries
  // before it answers (DropRemovedInitializers), and so does Model::CollectGarbage before the values are freed.
  // Erasing each from the list scanned and shifted it: quadratic in a graph whose folding removes many.
  mutable std::vector<Value*> initializers_;
  mutable size_t removed_initializers_ = 0;
  void DropRemovedInitializers() const;
};

// Calls fn(reader, slot, value) for every present input of `n` and, at any depth, of the nodes inside its
// subgraphs: everything the node reads, which is what scheduling, liveness and removal have to account for.
template <typename Fn>
void ForEachRead(const Node& n, Fn&& fn) {
  for (size_t i = 0; i < n.num_inputs(); ++i)
    if (Value* v = n.input(i)) fn(const_cast<Node*>(&n), i, v);
  for (const Graph* sub : n.subgraphs())
    for (const auto& inner : sub->nodes()) ForEachRead(*inner, fn);
}

}  // namespace kiln
