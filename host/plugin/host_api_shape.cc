// ABI 1.4: what shape inference computed of a value's contents (value_shape_data).
#include <string>
#include <vector>

#include "ir/value.h"
#include "plugin/host_api.h"
#include "plugin/host_api_values.h"
#include "shape/shape_values.h"

namespace kiln::plugin {
namespace {

int64_t ValueShapeData(KilnValue* v, int64_t* out_values, const char** out_symbols, size_t capacity,
                       int32_t* out_is_scalar) {
  return GuardedValue<int64_t>(-1, [&]() -> int64_t {
    if (v == nullptr || FromKiln(v)->is_deleted()) return -1;
    std::shared_ptr<const ShapeData> d = ShapeValueOf(FromKiln(v));
    if (!d) return -1;
    if (out_is_scalar) *out_is_scalar = d->scalar ? 1 : 0;
    static thread_local std::vector<std::string> texts;  // valid until the next call
    texts.assign(d->elems.size(), std::string());
    for (size_t i = 0; i < d->elems.size() && i < capacity; ++i) {
      const auto& e = d->elems[i];
      const std::optional<int64_t> c = e ? e->constant() : std::nullopt;
      if (out_values) out_values[i] = c.value_or(0);
      if (e && !c) texts[i] = e->ToString();
      if (out_symbols) out_symbols[i] = c ? nullptr : texts[i].c_str();
    }
    return static_cast<int64_t>(d->elems.size());
  });
}

}  // namespace

void FillShapeSlots(KilnHostApi& api) { api.value_shape_data = ValueShapeData; }

}  // namespace kiln::plugin
