// A model-local function (ONNX FunctionProto): a name and a custom domain, the attributes a call may set, its own
// opset imports, and a body that is a real Graph whose inputs and outputs are the function's (untyped: a function
// is polymorphic). A call is a node whose domain and op type are the function's domain and name; inputs and outputs
// bind by position, and a body attribute with a ref_attr_name takes the call's attribute of that name.
//
// Functions are owned by the Model, journaled like every other mutation (adding, removing, renaming, changing the
// attribute list or the imports), and the body's own mutations go through the model's journal as any graph's do.
// The body is its own naming scope (NameSet), as ONNX wants: a body value may share a name with a value of the
// main graph.
#pragma once

#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/attribute.h"
#include "ir/graph.h"
#include "ir/name_set.h"
#include "ir/opset_import.h"

namespace kiln {

class Model;

class Function {
 public:
  Function(Model* model, std::string domain, std::string name);
  ~Function();
  Function(const Function&) = delete;
  Function& operator=(const Function&) = delete;

  Model* model() const { return model_; }
  const std::string& domain() const { return domain_; }
  const std::string& name() const { return name_; }
  // Renames the function (journaled); calls are not renamed here (Model::RenameFunction does both).
  Graph& body() { return *body_; }
  const Graph& body() const { return *body_; }
  bool is_deleted() const { return deleted_; }

  // Attribute names a call may set; IR 9's attribute defaults, kept as read (no value means no default).
  const std::vector<std::string>& attribute_names() const { return attribute_names_; }
  void SetAttributeNames(std::vector<std::string> names);  // journaled
  const std::vector<Attribute>& attribute_defaults() const { return attribute_defaults_; }
  void SetAttributeDefaults(std::vector<Attribute> defaults);
  // The default of an attribute (IR 9 attribute_proto), or null.
  const Attribute* FindDefault(std::string_view name) const;

  const std::vector<OpsetImport>& opset_imports() const { return opset_imports_; }
  void SetOpsetImports(std::vector<OpsetImport> imports);  // journaled
  // Imports `domain` at `version` when the function does not import it yet (journaled); returns whether it did.
  bool EnsureOpset(const std::string& domain, int64_t version);

  std::string doc_string;
  // The FunctionProto's fields this ONNX does not know (overload, value_info, metadata_props of newer IRs), kept
  // as serialized bytes and written back unchanged.
  std::string unknown_fields;

  NameSet& names() { return names_; }

 private:
  friend class Model;

  Model* model_;
  std::string domain_, name_;
  std::vector<std::string> attribute_names_;
  std::vector<Attribute> attribute_defaults_;
  std::vector<OpsetImport> opset_imports_;
  std::unique_ptr<Graph> body_;
  NameSet names_;
  bool deleted_ = false;
  std::list<std::unique_ptr<Function>>::iterator self_;
};

// The call's attribute bound to body attribute `a`: the call's attribute named a.ref_attr_name, else the
// function's default, else null (the body node then goes without it, as ONNX says). For an attribute that holds
// its own value (no ref_attr_name) returns `&a`.
const Attribute* BoundAttribute(const Function& f, const Node& call, const Attribute& a);

}  // namespace kiln
