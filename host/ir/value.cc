#include "ir/value.h"

#include "ir/graph.h"
#include "ir/model.h"

namespace kiln {

void Value::SetType(Type t) {
  Journal& j = graph_->model()->journal();
  if (j.active()) j.Record([this, old = type_] { type_ = old; });
  type_ = std::move(t);
}

}  // namespace kiln
