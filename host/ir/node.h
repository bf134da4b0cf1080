// A node: op type, domain, name, ordered inputs and outputs (an absent optional input or output is a null
// slot), typed attributes, and the subgraphs those attributes hold. Mutations go through these methods so the
// graph keeps producer and consumer links right and can undo them (see journal.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/annotations.h"
#include "ir/attribute.h"
#include "ir/inline_vector.h"
#include "ir/name.h"

namespace kiln {

class Graph;
class Value;

class Node {
 public:
  uint64_t id() const { return id_; }  // unique in the model, increasing in creation order
  int64_t order() const { return order_; }  // position hint: export keeps nodes in (order, id) order where legal
  const std::string& op_type() const { return *op_->op_type; }
  // The op type as kept once for the process (Intern): equal op types, equal pointers.
  const std::string* op_type_id() const { return op_->op_type; }
  const std::string& domain() const { return *op_->domain; }  // "" is ONNX's default domain
  const Name& name() const { return name_; }
  const std::string& doc_string() const { return ExtrasOrNone().rare.doc_string(); }
  void SetName(std::string name);
  void SetOpType(std::string op_type, std::string domain);
  void set_doc_string(std::string d) {
    if (!d.empty() || extras_) extras().rare.set_doc_string(std::move(d));
  }
  Graph* graph() const { return graph_; }
  bool is_deleted() const { return deleted_; }

  std::span<Value* const> inputs() const { return {io_.begin() + num_outputs_, io_.end()}; }
  std::span<Value* const> outputs() const { return {io_.begin(), num_outputs_}; }
  Value* input(size_t i) const { return i < num_inputs() ? io_[num_outputs_ + i] : nullptr; }
  Value* output(size_t i) const { return i < num_outputs_ ? io_[i] : nullptr; }
  size_t num_inputs() const { return io_.size() - num_outputs_; }
  size_t num_outputs() const { return num_outputs_; }
  // Rewires input `slot` (null makes it an absent optional input); grows the input list if needed.
  void SetInput(size_t slot, Value* v);
  void AppendInput(Value* v) { SetInput(num_inputs(), v); }
  // Grows (with absent inputs) or shrinks the input list to `n` slots.
  void ResizeInputs(size_t n);

  const std::vector<Attribute>& attributes() const { return ExtrasOrNone().attrs; }
  const Attribute* FindAttribute(std::string_view name) const;
  int64_t GetInt(std::string_view name, int64_t fallback) const;
  float GetFloat(std::string_view name, float fallback) const;
  std::string GetString(std::string_view name, std::string fallback) const;
  std::vector<int64_t> GetInts(std::string_view name) const;
  // Adds or replaces the attribute of that name (journaled).
  void SetAttribute(Attribute a);
  bool RemoveAttribute(std::string_view name);

  // String annotations (the ABI's node_set_annotation), written to the model's metadata on export.
  const std::map<std::string, std::string>& annotations() const { return ExtrasOrNone().rare.annotations(); }
  // Sets, or with nullopt removes, an annotation (journaled).
  void SetAnnotation(const std::string& key, const std::optional<std::string>& value);

  // Every subgraph held by this node's attributes, in attribute order.
  std::vector<Graph*> subgraphs() const;
  bool has_subgraphs() const;

  // Scratch space for one graph algorithm at a time (topological order); holds nothing between calls.
  mutable uint32_t scratch = 0;

  // Incremental shape inference (host/shape): whether this node may infer something new: it is new, or it, what
  // it reads or (for a node holding subgraphs) a node inside it changed since it was last inferred. Marking a node
  // inside a subgraph marks the nodes holding it too.
  bool shape_dirty() const { return shape_dirty_; }
  void MarkShapeDirty();
  void ClearShapeDirty() { shape_dirty_ = false; }

  // Op types and domains are few and every node names one of each: they are kept once for the process (never
  // freed, so they are as many as the distinct names ever seen) and a node points at its pair of them, 8 bytes
  // instead of 64.
  static const std::string* Intern(std::string name);

 private:
  friend class Graph;
  template <typename> friend class OwnerList;
  friend class Model;

  // For Graph's node addition and removal, which journal these themselves (one undo step per node, not one per
  // input). AttachInputs takes `inputs` as the input list, each a use of its value; DetachInputs empties every slot
  // (the list keeps its length) and returns what they held.
  void AttachInputs(std::vector<Value*> inputs);
  std::vector<Value*> DetachInputs();
  // Runs `edit` (a change to attrs_) and keeps the graph's count of nodes holding subgraphs (Graph::holds_subgraphs)
  // right. Defined and used in node.cc only.
  template <typename Edit>
  void EditAttributes(Edit&& edit);

  // Input `slot` and output `slot`, in io_.
  Value*& in(size_t slot) { return io_[num_outputs_ + slot]; }
  Value*& out(size_t slot) { return io_[slot]; }
  // Grows (with absent inputs) or shrinks the input list to `n` slots; nothing else (no uses, no undo step).
  void ResizeInputList(size_t n) { io_.resize(num_outputs_ + n, nullptr); }
  // Adds an output slot holding `v` after the others (graph.cc, as the node is made).
  void AppendOutputSlot(Value* v) {
    io_.insert(num_outputs_, v);
    ++num_outputs_;
  }

  uint32_t index_ = 0;  // in its graph's OwnerList; first, beside `scratch`
  uint32_t id_ = 0;     // Model::NextNodeId refuses a 2^32nd node
  // Two flags and the output count in one word: a node has fewer than 2^30 outputs (each takes a name of the
  // model's protobuf, which is under 2 GB).
  uint32_t deleted_ : 1 = false;
  uint32_t shape_dirty_ : 1 = true;
  uint32_t num_outputs_ : 30 = 0;
  int64_t order_ = 0;
  // An op type and a domain, both Interned; the pair is kept once for the process too (OpKeyOf). With it, a 16-byte
  // Name, a 32-bit id, the outputs and inputs in one list and the attributes and rare fields out of line, a node is
  // 96 bytes, an allocator size class of its own (104 would take 112).
  struct OpKey {
    const std::string* op_type;
    const std::string* domain;
  };
  static const OpKey* OpKeyOf(std::string op_type, std::string domain);
  const OpKey* op_ = OpKeyOf({}, {});
  Name name_;
  // The outputs, then the inputs (an absent one null): most nodes have one output and one or two inputs, and the
  // three fit in place.
  InlineVector<Value*, 3> io_;
  // The attributes, annotations and doc string, out of line in one block: null while the node has none (Add, Mul,
  // Relu...), 8 bytes where a vector of attributes and the rare fields took 32.
  struct Extras {
    std::vector<Attribute> attrs;
    RareFields rare;
  };
  std::unique_ptr<Extras> extras_;
  static const Extras& NoExtras();
  const Extras& ExtrasOrNone() const { return extras_ ? *extras_ : NoExtras(); }
  Extras& extras() {
    if (!extras_) extras_ = std::make_unique<Extras>();
    return *extras_;
  }
  std::vector<Attribute>& MutableAttributes() { return extras().attrs; }
  Graph* graph_ = nullptr;
};

}  // namespace kiln
