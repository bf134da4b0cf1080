#include "ir/graph.h"

#include <algorithm>
#include <limits>

#include "ir/function.h"
#include "ir/model.h"
#include "support/error.h"

namespace kiln {

Graph::Graph(Model* model, Graph* parent, Node* owner_node)
    : model_(model), parent_(parent), owner_node_(owner_node) {}

Graph::Graph(Model* model, Function* function) : model_(model), parent_(nullptr), owner_node_(nullptr), function_(function) {}

const Graph* Graph::root() const {
  const Graph* g = this;
  while (g->parent_ != nullptr) g = g->parent_;
  return g;
}

NameSet& Graph::names() const {
  const Graph* r = root();
  return r->function_ != nullptr ? r->function_->names() : model_->names();
}

void Graph::BumpStructure() {
  const uint32_t keep = model_->preserved_analyses;
  for (Graph* g = this; g != nullptr; g = g->parent_) {
    ++g->structure_version_;
    if (keep == 0) continue;
    for (int k = 0; k < kAnalysisKinds; ++k)
      if ((keep & (1u << k)) && g->analysis_stamps_[k] == g->structure_version_ - 1) {
        g->analysis_stamps_[k] = g->structure_version_;
        model_->analyses_carried_over = true;
      }
  }
}

void Graph::SetNodeOrder(const std::vector<Node*>& order) {
  std::vector<std::pair<Node*, int64_t>> old;
  old.reserve(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    old.emplace_back(order[i], order[i]->order_);
    order[i]->order_ = static_cast<int64_t>(i);
  }
  BumpStructure();
  Journal& j = model_->journal();
  if (j.active())
    j.Record([this, old = std::move(old)] {
      for (const auto& [n, o] : old) n->order_ = o;
      BumpStructure();
    });
}

void Graph::ClearAnalyses() const {
  analysis_data_.reset();
  for (uint64_t& s : analysis_stamps_) s = ~0ull;
}

Graph::~Graph() = default;

Value* Graph::NewValue(std::string name) {
  auto owned = std::make_unique<Value>();
  Value* v = owned.get();
  v->name_ = Name(name, model_->name_arena());
  v->SetGraph(this);
  values_.Append(std::move(owned));
  if (!v->name_.empty()) {
    by_name_.Insert(v);
    names().Note(v->name_);
  }
  Journal& j = model_->journal();
  if (j.active()) j.Record([this, v] { RemoveValue(v); });
  return v;
}

void Graph::ReserveValues(size_t n) {
  by_name_.Reserve(by_name_.size() + n);
}

Node* Graph::AddNode(std::string op_type, std::vector<Value*> inputs, size_t num_outputs, std::string name,
                     std::string domain) {
  std::string base = name.empty() ? op_type : name;
  std::vector<std::string> outs;
  outs.reserve(num_outputs);
  for (size_t i = 0; i < num_outputs; ++i) outs.push_back(FreshName(base + "_output_" + std::to_string(i)));
  if (name.empty()) name = FreshName(op_type);
  return AddNodeWithOutputs(std::move(op_type), std::move(domain), std::move(name), std::move(inputs), outs);
}

Node* Graph::AddNodeWithOutputs(std::string op_type, std::string domain, std::string name,
                                std::vector<Value*> inputs, const std::vector<std::string>& output_names) {
  auto owned = std::make_unique<Node>();
  Node* n = owned.get();
  n->id_ = static_cast<uint32_t>(model_->NextNodeId());
  n->order_ = model_->insertion_order;
  n->op_ = Node::OpKeyOf(std::move(op_type), std::move(domain));
  n->name_ = Name(name, model_->name_arena());
  n->graph_ = this;
  nodes_.Append(std::move(owned));
  model_->NoteNewNode(n);
  BumpStructure();
  Journal& j = model_->journal();
  // Undo steps run newest first, so the node is removed after its inputs and outputs were undone.
  if (j.active()) j.Record([this, n] { RemoveNode(n); });
  for (size_t i = 0; i < output_names.size(); ++i) {
    Value* v = nullptr;
    if (!output_names[i].empty()) {
      v = NewValue(output_names[i]);
      v->SetProducer(n, static_cast<uint32_t>(i));
    }
    n->AppendOutputSlot(v);
  }
  // Not with SetInput: undoing the addition (RemoveNode, above) lets go of the inputs, so steps of their own would
  // only hold memory (a step and a capture per input: 6 MB of a 100k-node fusion).
  n->AttachInputs(std::move(inputs));
  return n;
}

void Graph::RemoveNode(Node* n) {
  if (n->graph_ != this || n->deleted_) throw InternalError("RemoveNode: node '" + n->name() + "' is not live here");
  for (Value* out : n->outputs()) {
    if (out != nullptr && out->has_uses()) {
      std::string user = out->uses().empty() ? std::string("a graph output") : "node '" + out->uses()[0].node->name() + "'";
      throw InternalError("cannot remove node '" + n->name() + "': its output '" + out->name() + "' is still read by " +
                          user);
    }
  }
  // Not with SetInput: the one undo step below takes the inputs back, where a step per input (and its capture)
  // held 13 MB of a 100k-node graph's fusion.
  std::vector<Value*> inputs = n->DetachInputs();
  // Reads of outer values from inside the node's subgraphs go too, so those values do not keep dead consumers.
  ForEachRead(*n, [&](Node* reader, size_t slot, Value* v) {
    if (reader != n && IsVisible(v)) reader->SetInput(slot, nullptr);
  });
  for (Value* out : n->outputs())
    if (out != nullptr) RemoveValue(out);
  // The values of the node's subgraphs go with it: their names free up (and are taken again on rollback).
  std::vector<std::string> inner;
  for (const Graph* sub : n->subgraphs())
    ForEachGraphIn(*sub, [&](const Graph& sg) {
      for (const auto& v : sg.value_list())
        if (!v->name().empty()) inner.push_back(v->name());
    });
  for (const std::string& name : inner) names().Forget(name);
  n->deleted_ = true;
  if (n->has_subgraphs()) --subgraph_holders_;
  model_->Bury(nodes_.Take(n));
  BumpStructure();
  Journal& j = model_->journal();
  if (!j.active()) return;
  // What both undo steps below do first: the node back in the list, live. Static, so that a step calls it without
  // capturing it (the short step's three words fill its place in UndoStep).
  static constexpr auto restore = [](Graph* g, Node* n) {
    g->nodes_.Append(g->model_->Unbury(n));
    n->deleted_ = false;
    if (n->has_subgraphs()) ++g->subgraph_holders_;
  };
  static_assert(alignof(Value) >= 2, "the input pointer keeps its low bit for the list length");
  if (inner.empty() && inputs.size() <= 1) {
    // Most nodes removed read one value or none and hold no named subgraph values: then the step keeps its input
    // (the list's length in the low bit) in place (undo_step.h), where the general step's capture took a 64-byte
    // block and its input list another.
    const uintptr_t input = inputs.empty() ? 0 : reinterpret_cast<uintptr_t>(inputs[0]) | 1;
    j.Record([this, n, input] {
      restore(this, n);
      if (input & 1) n->AttachInputs({reinterpret_cast<Value*>(input & ~uintptr_t{1})});
      BumpStructure();
    });
    return;
  }
  j.Record([this, n, inner = std::move(inner), inputs = std::move(inputs)] {
    restore(this, n);
    for (const std::string& name : inner) names().Note(name);
    n->AttachInputs(inputs);
    BumpStructure();
  });
}

Value* Graph::FindValue(std::string_view name) const {
  return by_name_.Find(name);
}

Value* Graph::LookupValue(std::string_view name) const {
  for (const Graph* g = this; g != nullptr; g = g->parent_)
    if (Value* v = g->FindValue(name)) return v;
  return nullptr;
}

std::vector<Value*> Graph::values() const {
  std::vector<Value*> out;
  out.reserve(values_.size());
  for (const auto& v : values_) out.push_back(v.get());
  return out;
}

namespace {

// Graph outputs that name `from`: in its own graph, or in a subgraph that returns an outer value directly.
void ReplaceInOutputs(Graph* g, Value* from, Value* to) {
  for (size_t i = 0; i < g->outputs().size(); ++i)
    if (g->outputs()[i] == from) g->SetOutput(i, to);
  if (!g->holds_subgraphs()) return;
  for (const auto& n : g->nodes()) {
    if (!from->is_graph_output()) return;
    for (Graph* sub : n->subgraphs()) ReplaceInOutputs(sub, from, to);
  }
}

}  // namespace

void Graph::ReplaceAllUsesWith(Value* from, Value* to) {
  if (from == to) return;
  std::vector<Use> uses(from->uses_.begin(), from->uses_.end());
  for (const Use& u : uses) u.node->SetInput(u.slot, to);
  if (from->is_graph_output()) ReplaceInOutputs(from->graph(), from, to);
}

void Graph::ReplaceValue(Value* from, Value* to) {
  if (from == to) return;
  const bool keep_name = from->is_graph_output() && from->graph() == to->graph() && to->producer() != nullptr &&
                         !to->is_graph_output() && !to->is_graph_input();
  ReplaceAllUsesWith(from, to);
  if (!keep_name) return;
  Graph& g = *from->graph();
  std::string name = from->name_;
  g.RenameValue(from, g.FreshName(name + "_replaced"));
  g.RenameValue(to, name);
}

void Graph::RemoveValue(Value* v) {
  if (v->deleted_) return;
  if (!v->uses_.empty() || v->is_graph_output() || v->is_graph_input())
    throw InternalError("cannot remove value '" + v->name() + "': it is still used or declared");
  if (v->initializer()) {
    ++removed_initializers_;  // the entry stays until the list is next read
    Journal& j = model_->journal();
    if (j.active()) j.Record([this] { --removed_initializers_; });
  } else if (v->is_initializer()) {
    auto& list = sparse_initializers_;
    auto it = std::find(list.begin(), list.end(), v);
    if (it != list.end()) {
      size_t pos = static_cast<size_t>(it - list.begin());
      list.erase(it);
      Journal& j = model_->journal();
      if (j.active()) j.Record([&list, pos, v] { list.insert(list.begin() + static_cast<ptrdiff_t>(pos), v); });
    }
  }
  // A value declared in value_info keeps its entry: readers of value_infos() skip deleted values, a rollback finds
  // the entry where it was, and Model::CollectGarbage drops it with the value. Erasing it here scanned and shifted
  // the list for every removal (20% of an O2 compile of a 100k-node graph with value_info on every value).
  if (!v->name_.empty()) {
    by_name_.Erase(v);
    names().Forget(v->name_);
  }
  v->deleted_ = true;
  model_->Bury(values_.Take(v));
  Journal& j = model_->journal();
  if (j.active()) {
    j.Record([this, v] {
      values_.Append(model_->Unbury(v));
      v->deleted_ = false;
      if (!v->name_.empty()) {
        by_name_.Insert(v);
        names().Note(v->name_);
      }
    });
  }
}

const std::vector<Value*>& Graph::initializers() const {
  DropRemovedInitializers();
  return initializers_;
}

void Graph::DropRemovedInitializers() const {
  if (removed_initializers_ == 0) return;
  // A rollback puts the list back as it was, entries of removed values included: the removals' own undo steps,
  // which run after this one, find them in place.
  Journal& j = model_->journal();
  if (j.active()) {
    j.Record([this, list = initializers_, n = removed_initializers_] {
      initializers_ = list;
      removed_initializers_ = n;
    });
  }
  std::erase_if(initializers_, [](const Value* v) { return v->is_deleted(); });
  removed_initializers_ = 0;
}

void Graph::RenameValue(Value* v, std::string name) {
  if (v->name_ == name) return;
  if (!name.empty() && FindValue(name) != nullptr)
    throw InternalError("RenameValue: '" + name + "' is taken in graph '" + name_ + "'");
  std::string old = v->name_;
  if (!old.empty()) {
    by_name_.Erase(v);
    names().Forget(old);
  }
  v->name_ = Name(name, model_->name_arena());
  if (!v->name_.empty()) {
    by_name_.Insert(v);
    names().Note(v->name_);
  }
  Journal& j = model_->journal();
  if (j.active()) j.Record([this, v, old] { RenameValue(v, old); });
}

void Graph::TransferOutput(Node* to, size_t slot, Value* v, bool leave_empty) {
  if (to->graph_ != this || v->graph() != this) throw InternalError("TransferOutput: node and value must be of this graph");
  if (slot >= to->num_outputs()) throw InternalError("TransferOutput: node '" + to->name() + "' has no output " + std::to_string(slot));
  Value* displaced = to->out(slot);
  if (displaced == v) return;
  v->MarkReadersShapeDirty();
  if (displaced != nullptr && displaced->has_uses())
    throw InternalError("TransferOutput: output " + std::to_string(slot) + " of node '" + to->name() + "' is still read");
  if (v->is_initializer() || v->is_graph_input())
    throw InternalError("TransferOutput: '" + v->name() + "' is an initializer or graph input");
  Journal& j = model_->journal();
  if (Node* old = v->producer(); old && leave_empty) {
    uint32_t old_slot = v->producer_output_;
    old->out(old_slot) = nullptr;
    if (j.active()) j.Record([old, old_slot, v] { old->out(old_slot) = v; });
  } else if (old) {
    // The old producer keeps an output in that slot, unused.
    uint32_t old_slot = v->producer_output_;
    Value* fresh = NewValue(FreshName(v->name() + "_unused"));
    fresh->SetProducer(old, old_slot);
    old->out(old_slot) = fresh;
    if (j.active()) j.Record([old, old_slot, v, fresh] {
        old->out(old_slot) = v;
        fresh->ClearProducer();
      });
  }
  Node* prev_producer = v->producer();
  uint32_t prev_slot = v->producer_output_;
  to->out(slot) = v;
  v->SetProducer(to, static_cast<uint32_t>(slot));
  if (j.active()) j.Record([to, slot, v, displaced, prev_producer, prev_slot] {
      to->out(slot) = displaced;
      v->SetProducer(prev_producer, prev_slot);
    });
  if (displaced != nullptr) {
    displaced->ClearProducer();
    if (j.active()) j.Record([displaced, to, slot] { displaced->SetProducer(to, static_cast<uint32_t>(slot)); });
    RemoveValue(displaced);
  }
  BumpStructure();
}

uint16_t& Graph::ListingsOf(const std::vector<Value*>& list, Value* v) const {
  return &list == &inputs_ ? v->extras().graph_input_refs : v->extras().graph_output_refs;
}

void Graph::InsertIntoList(std::vector<Value*>& list, size_t i, Value* v) {
  uint16_t& listed = ListingsOf(list, v);
  if (listed == std::numeric_limits<uint16_t>::max())
    throw ModelError("graph '" + name_ + "' lists value '" + v->name() + "' more than " +
                     std::to_string(std::numeric_limits<uint16_t>::max()) + " times among its " +
                     (&list == &inputs_ ? "inputs" : "outputs"));
  list.insert(list.begin() + static_cast<ptrdiff_t>(i), v);
  ++listed;
  BumpStructure();
  Journal& j = model_->journal();
  if (j.active()) j.Record([this, &list, i] { RemoveFromList(list, i); });
}

void Graph::RemoveFromList(std::vector<Value*>& list, size_t i) {
  Value* v = list[i];
  list.erase(list.begin() + static_cast<ptrdiff_t>(i));
  --ListingsOf(list, v);
  BumpStructure();
  Journal& j = model_->journal();
  if (j.active()) j.Record([this, &list, i, v] { InsertIntoList(list, i, v); });
}

Value* Graph::AddInput(std::string name, Type type) {
  if (FindValue(name) != nullptr) throw InternalError("AddInput: value '" + name + "' already exists");
  Value* v = NewValue(std::move(name));
  v->type_ = model_->types().Intern(std::move(type));
  AppendInput(v);
  return v;
}

void Graph::AppendInput(Value* v) { InsertIntoList(inputs_, inputs_.size(), v); }
void Graph::RemoveInput(size_t i) { RemoveFromList(inputs_, i); }
void Graph::AppendOutput(Value* v) { InsertIntoList(outputs_, outputs_.size(), v); }
void Graph::RemoveOutput(size_t i) { RemoveFromList(outputs_, i); }

void Graph::SetOutput(size_t i, Value* v) {
  RemoveOutput(i);
  InsertIntoList(outputs_, i, v);
}

void Graph::AppendValueInfo(Value* v) {
  value_infos_.push_back(v);
  v->in_value_info_ = true;
  Journal& j = model_->journal();
  if (j.active()) j.Record([this, v] {
      value_infos_.pop_back();
      v->in_value_info_ = false;
    });
}

Value* Graph::AddInitializer(Tensor t) {
  std::string name = t.name();
  if (name.empty() || names().Contains(name)) name = FreshName(name.empty() ? "const" : name);
  return AddInitializerNamed(std::move(name), std::move(t));
}

Value* Graph::AddInitializerNamed(std::string name, Tensor t) {
  t.set_name({});  // the value holds the name: the tensor keeps no second copy of it
  return AddInitializerNamed(std::move(name), std::make_shared<const Tensor>(std::move(t)));
}

Value* Graph::AddInitializerNamed(std::string name, std::shared_ptr<const Tensor> t) {
  if (name.empty() || FindValue(name) != nullptr)
    throw InternalError("AddInitializerNamed: '" + name + "' is empty or taken in graph '" + name_ + "'");
  Value* v = NewValue(std::move(name));
  SetInitializer(v, std::move(t));
  return v;
}

void Graph::SetInitializer(Value* v, std::shared_ptr<const Tensor> t) {
  Journal& j = model_->journal();
  if (v->initializer()) {
    if (j.active()) j.Record([v, old = v->initializer(), old_type = v->type_] {
        v->SetInitializer(old);
        v->type_ = old_type;
      });
  } else {
    initializers_.push_back(v);
    if (j.active()) j.Record([this, v, old_type = v->type_] {
        initializers_.pop_back();
        v->SetInitializer(nullptr);
        v->type_ = old_type;
      });
  }
  Shape shape;
  for (int64_t d : t->dims()) shape.dims.push_back(Dim::Known(d));
  v->type_ = model_->types().Intern(Type::Tensor(t->type(), std::move(shape)));
  v->SetInitializer(std::move(t));
  v->MarkReadersShapeDirty();
}

void Graph::ConvertToInitializer(Value* v, std::shared_ptr<const Tensor> t) {
  Node* p = v->producer();
  if (p == nullptr) throw InternalError("ConvertToInitializer: '" + v->name() + "' has no producer");
  uint32_t slot = v->producer_output_;
  Value* fresh = NewValue(FreshName(v->name() + "_unused"));
  fresh->SetProducer(p, slot);
  p->out(slot) = fresh;
  v->ClearProducer();
  Journal& j = model_->journal();
  if (j.active()) j.Record([p, slot, v] {
      p->out(slot) = v;
      v->SetProducer(p, slot);
    });
  SetInitializer(v, std::move(t));
  BumpStructure();
}

Value* Graph::AddSparseInitializer(SparseTensor t) {
  std::string name = t.values.name();
  if (name.empty() || names().Contains(name)) name = FreshName(name.empty() ? "sparse_const" : name);
  t.values.set_name(name);
  Value* v = NewValue(name);
  Type ty;
  ty.kind = Type::Kind::kSparseTensor;
  ty.elem = t.values.type();
  Shape shape;
  for (int64_t d : t.dims) shape.dims.push_back(Dim::Known(d));
  ty.shape = std::move(shape);
  v->type_ = model_->types().Intern(std::move(ty));
  v->extras().sparse_initializer = std::make_shared<const SparseTensor>(std::move(t));
  sparse_initializers_.push_back(v);
  Journal& j = model_->journal();
  if (j.active()) j.Record([this] { sparse_initializers_.pop_back(); });
  return v;
}

std::string Graph::FreshName(std::string_view hint) const { return names().Fresh(hint); }

void Graph::CompactLists() {
  nodes_.Compact();
  values_.Compact();
}

size_t Graph::CountNodes(bool include_subgraphs) const {
  size_t n = nodes_.size();
  if (include_subgraphs && holds_subgraphs())
    for (const auto& node : nodes_)
      for (const Graph* g : node->subgraphs()) n += g->CountNodes(true);
  return n;
}

Node* Graph::AncestorIn(Node* n) const {
  while (n != nullptr && n->graph() != this) n = n->graph()->owner_node();
  return n;
}

bool Graph::IsVisible(const Value* v) const {
  for (const Graph* g = this; g != nullptr; g = g->parent_)
    if (v->graph() == g) return true;
  return false;
}

}  // namespace kiln
