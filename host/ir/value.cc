#include "ir/value.h"

#include "ir/annotations.h"
#include "ir/graph.h"
#include "ir/model.h"

namespace kiln {

void Value::SetType(Type t) {
  Journal& j = graph_->model()->journal();
  if (j.active()) j.Record([this, old = type_] { type_ = old; });
  type_ = std::move(t);
}

void Value::SetAnnotation(const std::string& key, const std::optional<std::string>& value) {
  SetAnnotationIn(annotations_, graph_->model()->journal(), key, value);
}

}  // namespace kiln
