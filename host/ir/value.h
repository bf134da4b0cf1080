// A value (an edge): a graph input, an initializer, or a node's output. It knows its producer, its consumers
// (including nodes inside subgraphs that read it from an outer scope) and its type.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ir/annotations.h"
#include "ir/name.h"
#include "ir/tensor.h"
#include "ir/type.h"
#include "ir/type_table.h"
#include "ir/use_list.h"

namespace kiln {

class Graph;
class Node;
struct ShapeData;  // host/shape/shape_values.h

class Value {
 public:
  Value() = default;
  Value(const Value&) = delete;
  Value& operator=(const Value&) = delete;
  ~Value();

  const Name& name() const { return name_; }
  // Kept once in the model's TypeTable: the reference stays valid (and unchanged) after SetType.
  const Type& type() const { return *type_; }
  void SetType(Type t);  // journaled; marks the readers for shape inference when the type changes
  // Marks every node that reads this value for incremental shape inference (Node::MarkShapeDirty).
  void MarkReadersShapeDirty() const;
  DataType elem_type() const { return type_->elem; }

  Node* producer() const { return (producer_or_graph_ & 1) ? nullptr : reinterpret_cast<Node*>(producer_or_graph_); }
  uint32_t producer_output() const { return producer_output_; }
  std::span<const Use> uses() const { return uses_; }
  bool has_uses() const { return !uses_.empty() || is_graph_output(); }
  // The graph the value was made in: its producer's, or the one it keeps itself when it has none.
  Graph* graph() const;

  // Initializer data, shared; null unless the value is an initializer.
  const std::shared_ptr<const Tensor>& initializer() const {
    if (const auto* box = InitializerBox()) return *box;
    return ExtrasOrNone().initializer;
  }
  const std::shared_ptr<const SparseTensor>& sparse_initializer() const { return ExtrasOrNone().sparse_initializer; }
  bool is_initializer() const {
    if (InitializerBox() != nullptr) return true;
    const Extras* e = ExtrasIfAny();
    return e && (e->initializer || e->sparse_initializer);
  }
  bool is_graph_input() const {
    const Extras* e = ExtrasIfAny();
    return e && e->graph_input_refs > 0;
  }
  bool is_graph_output() const {
    const Extras* e = ExtrasIfAny();
    return e && e->graph_output_refs > 0;
  }
  bool is_deleted() const { return deleted_; }

  // String annotations (the ABI's value_set_annotation), written to the model's metadata on export.
  const std::map<std::string, std::string>& annotations() const { return ExtrasOrNone().rare.annotations(); }
  void SetAnnotation(const std::string& key, const std::optional<std::string>& value);  // journaled

  // What shape inference computed of this value's contents when it is a small integer tensor made from shapes
  // (Shape -> Gather -> Concat chains): see host/shape/shape_values.h. Null when nothing is known.
  const std::shared_ptr<const ShapeData>& shape_data() const { return ExtrasOrNone().shape_data; }
  // Sets it (not journaled: shape inference starts over after a rollback) and marks the readers when it changed.
  void SetShapeData(std::shared_ptr<const ShapeData> d, bool changed);

  // Kept for round trips: whether the model declared this value in value_info, and its doc string.
  bool in_value_info() const { return in_value_info_; }
  const std::string& doc_string() const { return ExtrasOrNone().rare.doc_string(); }
  void set_doc_string(std::string d) {
    if (!d.empty() || ExtrasIfAny()) extras().rare.set_doc_string(std::move(d));
  }

 private:
  friend class Graph;
  template <typename> friend class OwnerList;
  friend class Node;
  friend class Model;

  // What few values have, out of line (a 100k-node graph has 230k values): a sparse initializer's data, what shape
  // inference knows of a shape tensor's contents, annotations, a doc string, and how many times the value is listed
  // among its graph's inputs and outputs (Graph refuses a 65,536th); and the initializer's tensor of a value that
  // has any of those. One word for all of them (`more_`), a 16-byte Name and a 16-byte UseList keep a value at 64
  // bytes, an allocator size class of its own (72 would take 80).
  struct Extras {
    std::shared_ptr<const Tensor> initializer;
    std::shared_ptr<const SparseTensor> sparse_initializer;
    std::shared_ptr<const ShapeData> shape_data;
    RareFields rare;
    uint16_t graph_input_refs = 0, graph_output_refs = 0;
  };
  const Extras& ExtrasOrNone() const;
  Extras* ExtrasIfAny() const { return (more_ & 1) ? nullptr : reinterpret_cast<Extras*>(more_); }
  std::shared_ptr<const Tensor>* InitializerBox() const {
    return (more_ & 1) ? reinterpret_cast<std::shared_ptr<const Tensor>*>(more_ & ~uintptr_t{1}) : nullptr;
  }
  Extras& extras();
  // The initializer's tensor, or none (null). Not journaled: Graph's callers record their own undo steps.
  void SetInitializer(std::shared_ptr<const Tensor> t);

  // Input `slot` of `n` reads this value, or no longer does (the first such use goes). Not journaled: the callers
  // (Node::SetInput, Graph's node addition and removal) record their own undo steps.
  void AddUse(Node* n, size_t slot) { uses_.push_back(n, static_cast<uint32_t>(slot)); }
  void DropUse(Node* n, size_t slot);
  // Output `slot` of `n` (a node of the value's graph), or none (null). Not journaled: Graph's callers record their
  // own undo steps.
  void SetProducer(Node* n, uint32_t slot);
  void ClearProducer() { SetProducer(nullptr, producer_output_); }  // the slot stays, unread
  void SetGraph(Graph* g) { producer_or_graph_ = reinterpret_cast<uintptr_t>(g) | 1; }

  Name name_;
  const Type* type_ = TypeTable::None();  // in the model's TypeTable
  // The producer (a Node*), or the value's graph tagged 1 when it has none: a value's graph is its producer's, so
  // one word holds both, and a value fits in 64 bytes (an allocator size class: 1.67M values in the 1M-node chain).
  uintptr_t producer_or_graph_ = 1;
  UseList uses_;
  // The initializer's tensor and the extras in one word: 0 for neither; an Extras* (holding the tensor too, when
  // there is one); or, tagged 1, a heap-held shared_ptr to the tensor of an initializer with no extras (most
  // weights: 16 bytes of their own, where a shared_ptr in every value took 16 of each of the 1M-node chain's 1.67M
  // values, and the value 80 bytes).
  uintptr_t more_ = 0;
  // The producer's output slot, and two flags, in one word: a node has fewer than 2^30 outputs (each takes a name
  // of the model's protobuf, which is under 2 GB).
  uint32_t producer_output_ : 30 = 0;
  uint32_t deleted_ : 1 = false;
  uint32_t in_value_info_ : 1 = false;
  uint32_t index_ = 0;  // in its graph's OwnerList
};

}  // namespace kiln
