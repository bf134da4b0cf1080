#include "ir/node.h"

#include <algorithm>
#include <mutex>
#include <unordered_set>

#include "ir/annotations.h"
#include "ir/graph.h"
#include "ir/model.h"
#include "onnx/annotations_key.h"

namespace kiln {
namespace {

Journal& JournalOf(Node* n) { return n->graph()->model()->journal(); }

const std::string kEmpty;  // the default domain, and a new node's op type

// The interned names and pairs, under one lock (a node takes both at once).
struct InternTables {
  std::mutex mu;
  std::unordered_set<std::string> names;  // a node-based set: its elements never move

  const std::string* Name(std::string name) {  // with `mu` held
    return name.empty() ? &kEmpty : &*names.insert(std::move(name)).first;
  }
};

InternTables& Tables() {
  static InternTables tables;
  return tables;
}

}  // namespace

const std::string* Node::Intern(std::string name) {
  if (name.empty()) return &kEmpty;  // no lock
  InternTables& t = Tables();
  std::lock_guard<std::mutex> lock(t.mu);
  return t.Name(std::move(name));
}

const Node::OpKey* Node::OpKeyOf(std::string op_type, std::string domain) {
  static const OpKey empty{&kEmpty, &kEmpty};  // a new node's: no lock
  if (op_type.empty() && domain.empty()) return &empty;
  struct Hash {
    size_t operator()(const OpKey& k) const {
      return std::hash<const void*>()(k.op_type) * 31 + std::hash<const void*>()(k.domain);
    }
  };
  struct Equal {
    bool operator()(const OpKey& a, const OpKey& b) const { return a.op_type == b.op_type && a.domain == b.domain; }
  };
  static std::unordered_set<OpKey, Hash, Equal> keys;  // under Tables().mu; node-based: its elements never move
  InternTables& t = Tables();
  std::lock_guard<std::mutex> lock(t.mu);
  return &*keys.insert(OpKey{t.Name(std::move(op_type)), t.Name(std::move(domain))}).first;
}

void Node::MarkShapeDirty() {
  for (Node* n = this; n != nullptr; n = n->graph_->owner_node()) n->shape_dirty_ = true;
}

void Node::SetName(std::string name) {
  Journal& j = JournalOf(this);
  if (j.active()) j.Record([this, old = name_] { name_ = old; });
  name_ = Name(name, graph_->model()->name_arena());
}

void Node::SetOpType(std::string op_type, std::string domain) {
  Journal& j = JournalOf(this);
  if (j.active()) j.Record([this, old = op_] { op_ = old; });
  op_ = OpKeyOf(std::move(op_type), std::move(domain));
  MarkShapeDirty();
}

void Node::SetInput(size_t slot, Value* v) {
  Journal& j = JournalOf(this);
  if (slot >= num_inputs()) {
    if (v == nullptr) return;
    size_t old_size = num_inputs();
    ResizeInputList(slot + 1);
    if (j.active()) j.Record([this, old_size] { ResizeInputList(old_size); });
  }
  Value* old = in(slot);
  if (old == v) return;
  if (old != nullptr) old->DropUse(this, slot);
  if (v != nullptr) v->AddUse(this, slot);
  in(slot) = v;
  graph_->BumpStructure();
  MarkShapeDirty();
  if (j.active()) j.Record([this, slot, old] { SetInput(slot, old); });
}

void Node::AttachInputs(std::vector<Value*> inputs) {
  ResizeInputList(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    in(i) = inputs[i];
    if (inputs[i] != nullptr) inputs[i]->AddUse(this, i);
  }
  MarkShapeDirty();
}

std::vector<Value*> Node::DetachInputs() {
  std::vector<Value*> old(inputs().begin(), inputs().end());
  std::fill(io_.begin() + num_outputs_, io_.end(), nullptr);
  bool any = false;
  for (size_t i = 0; i < old.size(); ++i)
    if (old[i] != nullptr) old[i]->DropUse(this, i), any = true;
  if (any) MarkShapeDirty();
  return old;
}

void Node::ResizeInputs(size_t n) {
  if (n == num_inputs()) return;
  for (size_t i = n; i < num_inputs(); ++i) SetInput(i, nullptr);
  size_t old_size = num_inputs();
  ResizeInputList(n);
  Journal& j = JournalOf(this);
  if (j.active()) j.Record([this, old_size] { ResizeInputList(old_size); });
}

const Node::Extras& Node::NoExtras() {
  static const Extras none;
  return none;
}

const Attribute* Node::FindAttribute(std::string_view name) const {
  for (const Attribute& a : attributes())
    if (a.name == name) return &a;
  return nullptr;
}

int64_t Node::GetInt(std::string_view name, int64_t fallback) const {
  const Attribute* a = FindAttribute(name);
  return a && a->i ? *a->i : fallback;
}

float Node::GetFloat(std::string_view name, float fallback) const {
  const Attribute* a = FindAttribute(name);
  return a && a->f ? *a->f : fallback;
}

std::string Node::GetString(std::string_view name, std::string fallback) const {
  const Attribute* a = FindAttribute(name);
  return a && a->s ? *a->s : fallback;
}

std::vector<int64_t> Node::GetInts(std::string_view name) const {
  const Attribute* a = FindAttribute(name);
  return a ? a->ints : std::vector<int64_t>{};
}

template <typename Edit>
void Node::EditAttributes(Edit&& edit) {
  const bool held = has_subgraphs();
  edit();
  const bool holds = has_subgraphs();
  if (holds == held || graph_ == nullptr || deleted_) return;
  if (holds)
    ++graph_->subgraph_holders_;
  else
    --graph_->subgraph_holders_;
}

void Node::SetAttribute(Attribute a) {
  if (!IsTemporaryMark(a.name)) MarkShapeDirty();
  for (auto& g : a.graphs) {
    g->parent_ = graph_;
    g->owner_node_ = this;
  }
  Journal& j = JournalOf(this);
  std::vector<Attribute>& attrs = MutableAttributes();
  // An undo step that discards an attribute set in the transaction hands its graphs to the model: the steps that
  // built them (a copied subgraph), recorded earlier, run after it and still refer to them.
  auto it = std::find_if(attrs.begin(), attrs.end(), [&](const Attribute& x) { return x.name == a.name; });
  if (it == attrs.end()) {
    EditAttributes([&] { attrs.push_back(std::move(a)); });
    if (j.active())
      j.Record([this] {
        EditAttributes([&] {
          graph_->model()->BuryGraphs(std::move(extras_->attrs.back().graphs));
          extras_->attrs.pop_back();
        });
      });
    return;
  }
  const size_t i = static_cast<size_t>(it - attrs.begin());
  EditAttributes([&] {
    if (j.active()) {
      auto old = std::make_shared<Attribute>(std::move(attrs[i]));
      j.Record([this, i, old] {
        EditAttributes([&] {
          graph_->model()->BuryGraphs(std::move(extras_->attrs[i].graphs));
          extras_->attrs[i] = std::move(*old);
        });
      });
    }
    attrs[i] = std::move(a);
  });
}

bool Node::RemoveAttribute(std::string_view name) {
  if (!extras_) return false;
  std::vector<Attribute>& attrs = extras_->attrs;
  auto it = std::find_if(attrs.begin(), attrs.end(), [&](const Attribute& x) { return x.name == name; });
  if (it == attrs.end()) return false;
  if (!IsTemporaryMark(name)) MarkShapeDirty();
  const size_t i = static_cast<size_t>(it - attrs.begin());
  Journal& j = JournalOf(this);
  EditAttributes([&] {  // before the attribute is moved out for the undo step
    if (j.active()) {
      auto old = std::make_shared<Attribute>(std::move(attrs[i]));
      j.Record([this, i, old] {
        EditAttributes([&] {
          std::vector<Attribute>& kept = extras_->attrs;
          kept.insert(kept.begin() + static_cast<ptrdiff_t>(i), std::move(*old));
        });
      });
    }
    attrs.erase(attrs.begin() + static_cast<ptrdiff_t>(i));
  });
  return true;
}

void Node::SetAnnotation(const std::string& key, const std::optional<std::string>& value) {
  if (value || extras_) extras().rare.SetAnnotation(JournalOf(this), key, value);
}

std::vector<Graph*> Node::subgraphs() const {
  std::vector<Graph*> out;
  for (const Attribute& a : attributes())
    for (const auto& g : a.graphs) out.push_back(g.get());
  return out;
}

bool Node::has_subgraphs() const {
  for (const Attribute& a : attributes())
    if (!a.graphs.empty()) return true;
  return false;
}

}  // namespace kiln
