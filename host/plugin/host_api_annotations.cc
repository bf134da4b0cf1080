// ABI 1.2 slots for annotations: string key/value pairs on nodes and values, journaled, written on export to the
// model's metadata_props under KILN_ANNOTATIONS_METADATA_KEY (host/onnx/onnx_export.cc) and read back on import. A
// node without a name gets a fresh one when first annotated, since the exported annotations are keyed by name.
#include <iterator>
#include <stdexcept>

#include "ir/graph.h"
#include "ir/model.h"
#include "plugin/host_api.h"

namespace kiln::plugin {
namespace {

const char* At(const std::map<std::string, std::string>& m, size_t i, const char** out_value) {
  if (i >= m.size()) return nullptr;
  auto it = std::next(m.begin(), static_cast<ptrdiff_t>(i));
  if (out_value) *out_value = it->second.c_str();
  return it->first.c_str();
}
const char* Find(const std::map<std::string, std::string>& m, const char* key) {
  if (!key) return nullptr;
  auto it = m.find(key);
  return it == m.end() ? nullptr : it->second.c_str();
}
std::optional<std::string> Checked(const char* key, const char* value) {
  if (!key || !*key) throw std::invalid_argument("annotation key is NULL or empty");
  return value ? std::optional<std::string>(value) : std::nullopt;
}

KilnStatus* NodeSetAnnotation(KilnNode* n, const char* key, const char* value) {
  return Guarded([&] {
    if (!n) throw std::invalid_argument("node is NULL");
    Node& node = *FromKiln(n);
    if (node.is_deleted()) throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "node '" + node.name() + "' was deleted");
    std::optional<std::string> v = Checked(key, value);
    if (node.name().empty() && v) node.SetName(node.graph()->FreshName(node.op_type()));
    node.SetAnnotation(key, v);
  });
}
const char* NodeAnnotation(KilnNode* n, const char* key) { return n ? Find(FromKiln(n)->annotations(), key) : nullptr; }
size_t NodeAnnotationCount(KilnNode* n) { return n ? FromKiln(n)->annotations().size() : 0; }
const char* NodeAnnotationAt(KilnNode* n, size_t i, const char** out_value) {
  return n ? At(FromKiln(n)->annotations(), i, out_value) : nullptr;
}

KilnStatus* ValueSetAnnotation(KilnValue* v, const char* key, const char* value) {
  return Guarded([&] {
    if (!v) throw std::invalid_argument("value is NULL");
    Value& val = *FromKiln(v);
    if (val.is_deleted()) throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "value '" + val.name() + "' was deleted");
    val.SetAnnotation(key, Checked(key, value));
  });
}
const char* ValueAnnotation(KilnValue* v, const char* key) { return v ? Find(FromKiln(v)->annotations(), key) : nullptr; }
size_t ValueAnnotationCount(KilnValue* v) { return v ? FromKiln(v)->annotations().size() : 0; }
const char* ValueAnnotationAt(KilnValue* v, size_t i, const char** out_value) {
  return v ? At(FromKiln(v)->annotations(), i, out_value) : nullptr;
}

}  // namespace

void FillAnnotationSlots(KilnHostApi& api) {
  api.node_set_annotation = NodeSetAnnotation;
  api.node_annotation = NodeAnnotation;
  api.node_annotation_count = NodeAnnotationCount;
  api.node_annotation_at = NodeAnnotationAt;
  api.value_set_annotation = ValueSetAnnotation;
  api.value_annotation = ValueAnnotation;
  api.value_annotation_count = ValueAnnotationCount;
  api.value_annotation_at = ValueAnnotationAt;
}

}  // namespace kiln::plugin
