#include "ir/function.h"

#include <algorithm>

#include "ir/model.h"

namespace kiln {

Function::Function(Model* model, std::string domain, std::string name)
    : model_(model),
      domain_(std::move(domain)),
      name_(std::move(name)),
      body_(std::make_unique<Graph>(model, this)),
      names_([this](const std::function<void(std::string_view)>& add) { ForEachValueName(*body_, add); },
             [this](std::string_view name) { return HoldsValueNamed(*body_, name); }) {}

Function::~Function() = default;

void Function::SetAttributeNames(std::vector<std::string> names) {
  Journal& j = model_->journal();
  if (j.active()) j.Record([this, old = attribute_names_] { attribute_names_ = old; });
  attribute_names_ = std::move(names);
}

void Function::SetAttributeDefaults(std::vector<Attribute> defaults) {
  Journal& j = model_->journal();
  if (j.active()) {
    auto old = std::make_shared<std::vector<Attribute>>(std::move(attribute_defaults_));
    j.Record([this, old] { attribute_defaults_ = std::move(*old); });
  }
  attribute_defaults_ = std::move(defaults);
}

const Attribute* Function::FindDefault(std::string_view name) const {
  for (const Attribute& a : attribute_defaults_)
    if (a.name == name) return &a;
  return nullptr;
}

void Function::SetOpsetImports(std::vector<OpsetImport> imports) {
  Journal& j = model_->journal();
  if (j.active()) j.Record([this, old = opset_imports_] { opset_imports_ = old; });
  opset_imports_ = std::move(imports);
}

bool Function::EnsureOpset(const std::string& domain, int64_t version) {
  auto norm = [](std::string_view d) { return d == "ai.onnx" ? std::string_view() : d; };
  for (const OpsetImport& o : opset_imports_)
    if (norm(o.domain) == norm(domain)) return false;
  std::vector<OpsetImport> next = opset_imports_;
  next.push_back({domain, version});
  SetOpsetImports(std::move(next));
  return true;
}

const Attribute* BoundAttribute(const Function& f, const Node& call, const Attribute& a) {
  if (a.ref_attr_name.empty()) return &a;
  if (const Attribute* given = call.FindAttribute(a.ref_attr_name)) return given;
  return f.FindDefault(a.ref_attr_name);
}

}  // namespace kiln
