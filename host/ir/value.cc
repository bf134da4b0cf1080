#include "ir/value.h"

#include <algorithm>

#include "ir/annotations.h"
#include "ir/graph.h"
#include "ir/node.h"
#include "ir/model.h"

namespace kiln {

Graph* Value::graph() const {
  if (producer_or_graph_ & 1) return reinterpret_cast<Graph*>(producer_or_graph_ & ~uintptr_t{1});
  return reinterpret_cast<const Node*>(producer_or_graph_)->graph();
}

void Value::SetProducer(Node* n, uint32_t slot) {
  if (n == nullptr) {
    SetGraph(graph());
  } else {
    producer_or_graph_ = reinterpret_cast<uintptr_t>(n);
  }
  producer_output_ = slot;
}

void Value::SetType(Type t) {
  Model& m = *graph()->model();
  const Type* interned = m.types().Intern(std::move(t));
  if (interned == type_) return;  // equal types, one entry: unchanged
  MarkReadersShapeDirty();
  Journal& j = m.journal();
  // The old type stays in the table, so the undo step holds a pointer.
  j.RecordPointer(type_);
  type_ = interned;
}

void Value::MarkReadersShapeDirty() const {
  for (const Use& u : uses_) u.node->MarkShapeDirty();
}

void Value::DropUse(Node* n, size_t slot) {
  auto it = std::find(uses_.begin(), uses_.end(), Use{n, static_cast<uint32_t>(slot)});
  if (it != uses_.end()) uses_.erase(it);
}

Value::~Value() {
  if (auto* box = InitializerBox())
    delete box;
  else
    delete ExtrasIfAny();
}

const Value::Extras& Value::ExtrasOrNone() const {
  static const Extras none;
  const Extras* e = ExtrasIfAny();
  return e ? *e : none;
}

Value::Extras& Value::extras() {
  if (Extras* e = ExtrasIfAny()) return *e;
  auto e = std::make_unique<Extras>();
  if (auto* box = InitializerBox()) {
    e->initializer = std::move(*box);
    delete box;
  }
  more_ = reinterpret_cast<uintptr_t>(e.release());
  return *ExtrasIfAny();
}

void Value::SetInitializer(std::shared_ptr<const Tensor> t) {
  if (Extras* e = ExtrasIfAny()) {
    e->initializer = std::move(t);
  } else if (auto* box = InitializerBox()) {
    if (t) {
      *box = std::move(t);
    } else {
      delete box;
      more_ = 0;
    }
  } else if (t) {
    more_ = reinterpret_cast<uintptr_t>(new std::shared_ptr<const Tensor>(std::move(t))) | 1;
  }
}

void Value::SetShapeData(std::shared_ptr<const ShapeData> d, bool changed) {
  if (d || ExtrasIfAny()) extras().shape_data = std::move(d);
  if (changed) MarkReadersShapeDirty();
}

void Value::SetAnnotation(const std::string& key, const std::optional<std::string>& value) {
  if (value || ExtrasIfAny()) extras().rare.SetAnnotation(graph()->model()->journal(), key, value);
}

}  // namespace kiln
