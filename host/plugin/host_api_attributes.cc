// Host slots for node attributes: reading them (a getter of the wrong type answers 0, NULL or no elements) and
// setting or removing them through Node::SetAttribute / RemoveAttribute, which the journal can undo.
#include <stdexcept>

#include "ir/node.h"
#include "plugin/host_api.h"

namespace kiln::plugin {
namespace {

// ---- read
size_t NodeAttributeCount(KilnNode* n) { return n ? FromKiln(n)->attributes().size() : 0; }
const KilnAttribute* NodeAttributeAt(KilnNode* n, size_t i) {
  return n && i < FromKiln(n)->attributes().size() ? ToKiln(&FromKiln(n)->attributes()[i]) : nullptr;
}
const KilnAttribute* NodeAttribute(KilnNode* n, const char* name) {
  return n && name ? ToKiln(FromKiln(n)->FindAttribute(name)) : nullptr;
}
const char* AttrName(const KilnAttribute* a) { return a ? FromKiln(a)->name.c_str() : ""; }
int32_t AttrType(const KilnAttribute* a) { return a ? static_cast<int32_t>(FromKiln(a)->kind) : KILN_ATTR_UNDEFINED; }

bool Is(const KilnAttribute* a, AttrKind kind) { return a && FromKiln(a)->kind == kind; }

int64_t AttrInt(const KilnAttribute* a) { return Is(a, AttrKind::kInt) && FromKiln(a)->i ? *FromKiln(a)->i : 0; }
float AttrFloat(const KilnAttribute* a) { return Is(a, AttrKind::kFloat) && FromKiln(a)->f ? *FromKiln(a)->f : 0.0f; }

const char* AttrString(const KilnAttribute* a, size_t* out_size) {
  if (!Is(a, AttrKind::kString) || !FromKiln(a)->s) {
    if (out_size) *out_size = 0;
    return nullptr;
  }
  const std::string& s = *FromKiln(a)->s;
  if (out_size) *out_size = s.size();
  return s.c_str();
}

size_t AttrInts(const KilnAttribute* a, const int64_t** out) {
  if (out) *out = nullptr;
  if (!Is(a, AttrKind::kInts)) return 0;
  const auto& v = FromKiln(a)->ints;
  if (out) *out = v.empty() ? nullptr : v.data();
  return v.size();
}

size_t AttrFloats(const KilnAttribute* a, const float** out) {
  if (out) *out = nullptr;
  if (!Is(a, AttrKind::kFloats)) return 0;
  const auto& v = FromKiln(a)->floats;
  if (out) *out = v.empty() ? nullptr : v.data();
  return v.size();
}

size_t AttrStrings(const KilnAttribute* a, const KilnString** out) {
  return GuardedValue<size_t>(0, [&]() -> size_t {
    if (out) *out = nullptr;
    if (!Is(a, AttrKind::kStrings)) return 0;
    const auto& v = FromKiln(a)->strings;
    auto& views = CallFrame::Current().Make<std::vector<KilnString>>();
    for (const std::string& s : v) views.push_back({s.data(), s.size()});
    if (out) *out = views.empty() ? nullptr : views.data();
    return v.size();
  });
}

const KilnTensorView* AttrTensor(const KilnAttribute* a) {
  return GuardedValue<const KilnTensorView*>(nullptr, [&]() -> const KilnTensorView* {
    if (!Is(a, AttrKind::kTensor) || !FromKiln(a)->t) return nullptr;
    return CallFrame::Current().View(*FromKiln(a)->t);
  });
}

// ---- write
Node& Writable(KilnNode* n, const char* name) {
  if (!n) throw std::invalid_argument("node is NULL");
  if (!name || !*name) throw std::invalid_argument("attribute name is NULL or empty");
  Node& node = *FromKiln(n);
  if (node.is_deleted()) throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "node '" + node.name() + "' was deleted");
  return node;
}

KilnStatus* SetInt(KilnNode* n, const char* name, int64_t value) {
  return Guarded([&] { Writable(n, name).SetAttribute(Attribute::Int(name, value)); });
}
KilnStatus* SetFloat(KilnNode* n, const char* name, float value) {
  return Guarded([&] { Writable(n, name).SetAttribute(Attribute::Float(name, value)); });
}
KilnStatus* SetString(KilnNode* n, const char* name, const char* data, size_t size) {
  return Guarded([&] {
    Node& node = Writable(n, name);
    if (!data && size) throw std::invalid_argument("string data is NULL");
    node.SetAttribute(Attribute::String(name, std::string(data ? data : "", size)));
  });
}
KilnStatus* SetInts(KilnNode* n, const char* name, const int64_t* values, size_t count) {
  return Guarded([&] {
    Node& node = Writable(n, name);
    if (!values && count) throw std::invalid_argument("values is NULL");
    node.SetAttribute(Attribute::Ints(name, std::vector<int64_t>(values, values + count)));
  });
}
KilnStatus* SetFloats(KilnNode* n, const char* name, const float* values, size_t count) {
  return Guarded([&] {
    Node& node = Writable(n, name);
    if (!values && count) throw std::invalid_argument("values is NULL");
    node.SetAttribute(Attribute::Floats(name, std::vector<float>(values, values + count)));
  });
}
KilnStatus* SetStrings(KilnNode* n, const char* name, const KilnString* values, size_t count) {
  return Guarded([&] {
    Node& node = Writable(n, name);
    if (!values && count) throw std::invalid_argument("values is NULL");
    Attribute a;
    a.name = name;
    a.kind = AttrKind::kStrings;
    for (size_t i = 0; i < count; ++i) {
      if (!values[i].data && values[i].size) throw std::invalid_argument("a string's data is NULL");
      a.strings.emplace_back(values[i].data ? values[i].data : "", static_cast<size_t>(values[i].size));
    }
    node.SetAttribute(std::move(a));
  });
}
KilnStatus* SetTensor(KilnNode* n, const char* name, const KilnTensorView* tensor) {
  return Guarded([&] {
    Node& node = Writable(n, name);
    if (!tensor) throw std::invalid_argument("tensor is NULL");
    node.SetAttribute(Attribute::TensorValue(name, TensorFromView(*tensor)));
  });
}
KilnStatus* RemoveAttr(KilnNode* n, const char* name) {
  return Guarded([&] { Writable(n, name).RemoveAttribute(name); });
}

}  // namespace

void FillAttributeSlots(KilnHostApi& api) {
  api.node_attribute_count = NodeAttributeCount;
  api.node_attribute_at = NodeAttributeAt;
  api.node_attribute = NodeAttribute;
  api.attr_name = AttrName;
  api.attr_type = AttrType;
  api.attr_int = AttrInt;
  api.attr_float = AttrFloat;
  api.attr_string = AttrString;
  api.attr_ints = AttrInts;
  api.attr_floats = AttrFloats;
  api.attr_strings = AttrStrings;
  api.attr_tensor = AttrTensor;
  api.node_set_attr_int = SetInt;
  api.node_set_attr_float = SetFloat;
  api.node_set_attr_string = SetString;
  api.node_set_attr_ints = SetInts;
  api.node_set_attr_floats = SetFloats;
  api.node_set_attr_strings = SetStrings;
  api.node_set_attr_tensor = SetTensor;
  api.node_remove_attr = RemoveAttr;
}

}  // namespace kiln::plugin
