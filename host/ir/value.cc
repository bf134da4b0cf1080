#include "ir/value.h"

#include <algorithm>

#include "ir/annotations.h"
#include "ir/graph.h"
#include "ir/node.h"
#include "ir/model.h"

namespace kiln {

void Value::SetType(Type t) {
  if (t == type_) return;
  MarkReadersShapeDirty();
  Journal& j = graph_->model()->journal();
  if (j.active()) {
    // Shape inference gives a type to every value that had none, in one journal per pass call: an undo step holding
    // a copy of the old Type took a heap block of ~100 bytes per value (94 MB of the 1M-node chain's O2 peak, all
    // in InferShapePass). The empty type needs no copy, so its step fits in the std::function itself.
    static const Type kNone;
    if (type_ == kNone)
      j.Record([this] { type_ = Type(); });
    else
      j.Record([this, old = std::move(type_)] { type_ = old; });
  }
  type_ = std::move(t);
}

void Value::MarkReadersShapeDirty() const {
  for (const Use& u : uses_) u.node->MarkShapeDirty();
}

void Value::DropUse(Node* n, size_t slot) {
  auto it = std::find(uses_.begin(), uses_.end(), Use{n, static_cast<uint32_t>(slot)});
  if (it != uses_.end()) uses_.erase(it);
}

const Value::Extras& Value::ExtrasOrNone() const {
  static const Extras none;
  return extras_ ? *extras_ : none;
}

void Value::SetShapeData(std::shared_ptr<const ShapeData> d, bool changed) {
  if (d || extras_) extras().shape_data = std::move(d);
  if (changed) MarkReadersShapeDirty();
}

void Value::SetAnnotation(const std::string& key, const std::optional<std::string>& value) {
  rare_.SetAnnotation(graph_->model()->journal(), key, value);
}

}  // namespace kiln
