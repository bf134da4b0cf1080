// FindOnnxSchema and EnsureOnnxSchemas: see schema_registry.h.
#include "shape/schema_registry.h"

#include <onnx/defs/operator_sets.h>
#include <onnx/defs/operator_sets_ml.h>
#include <onnx/defs/operator_sets_preview.h>
#include <onnx/defs/operator_sets_training.h>
#include <onnx/defs/schema.h>

#include <algorithm>
#include <exception>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kiln {
namespace {

// One schema function of ONNX's: the op, its domain and since-version (from the class name that the headers spell
// out), and the function that builds its schema.
struct SchemaFunction {
  const char* op_type;
  const char* domain;
  int since_version;
  onnx::OpSchema (*make)();
};

// The domain tags of ONNX's schema class names (Abs_Onnx_ver13, LabelEncoder_OnnxML_ver2, Adam_OnnxPreview_ver1).
constexpr const char* kDomainOnnx = onnx::ONNX_DOMAIN;
constexpr const char* kDomainOnnxML = onnx::AI_ONNX_ML_DOMAIN;
constexpr const char* kDomainOnnxTraining = onnx::AI_ONNX_TRAINING_DOMAIN;
constexpr const char* kDomainOnnxPreview = onnx::AI_ONNX_PREVIEW_TRAINING_DOMAIN;

#define KILN_ONNX_SCHEMA(tag, ver, name) \
  {#name, kDomain##tag, ver, &onnx::GetOpSchema<onnx::ONNX_OPERATOR_SET_SCHEMA_CLASS_NAME(tag, ver, name)>},
constexpr SchemaFunction kSchemaFunctions[] = {
#include "onnx_schema_list.inc"
};
#undef KILN_ONNX_SCHEMA

// The schemas built so far, and whether ONNX's registry answers instead. Callers on a hot path remember what they
// are given (SchemaOf, for each node inference).
class Schemas {
 public:
  Schemas() {
    built_.resize(std::size(kSchemaFunctions));
    for (size_t i = 0; i < std::size(kSchemaFunctions); ++i)
      by_op_[KeyOf(kSchemaFunctions[i].domain, kSchemaFunctions[i].op_type)].push_back(i);
    for (auto& [key, functions] : by_op_)
      std::sort(functions.begin(), functions.end(),
                [](size_t a, size_t b) { return kSchemaFunctions[a].since_version < kSchemaFunctions[b].since_version; });
  }

  const onnx::OpSchema* Find(const std::string& op_type, int version, const std::string& domain) {
    std::lock_guard<std::mutex> lock(mu_);
    return registry_built_ ? onnx::OpSchemaRegistry::Schema(op_type, version, domain) : Built(op_type, version, domain);
  }

  // ONNX's registry, built here, answers from now on: it may hold plugins' schemas.
  void UseRegistry() {
    std::lock_guard<std::mutex> lock(mu_);
    UseRegistryLocked();
  }

 private:
  // The schema of the highest since-version at or below `version` among ONNX's functions, built on first use. One
  // that does not come out as the headers named it (or throws) leaves the answer to ONNX's registry, built then.
  const onnx::OpSchema* Built(const std::string& op_type, int version, const std::string& domain) {
    auto it = by_op_.find(KeyOf(domain, op_type));
    if (it == by_op_.end()) return nullptr;
    const std::vector<size_t>& functions = it->second;
    auto after = std::upper_bound(functions.begin(), functions.end(), version,
                                  [](int v, size_t i) { return v < kSchemaFunctions[i].since_version; });
    if (after == functions.begin()) return nullptr;
    const size_t i = *(after - 1);
    if (!built_[i]) built_[i] = Build(kSchemaFunctions[i]);
    if (built_[i]) return built_[i].get();
    UseRegistryLocked();
    return onnx::OpSchemaRegistry::Schema(op_type, version, domain);
  }

  void UseRegistryLocked() {
    // Any lookup builds the whole registry first (OpSchemaRegistry::map()'s static initialisation).
    (void)onnx::OpSchemaRegistry::Schema("Identity", 1, "");
    registry_built_ = true;
  }

  static std::string KeyOf(std::string_view domain, std::string_view op_type) {
    std::string key(domain);
    key += '\0';
    key += op_type;
    return key;
  }

  // As ONNX's registration makes it (OpSchemaRegisterOnce finalizes each schema); null when it throws or is not
  // the schema the headers named.
  static std::unique_ptr<onnx::OpSchema> Build(const SchemaFunction& f) {
    try {
      auto s = std::make_unique<onnx::OpSchema>(f.make());
      s->Finalize();
      if (s->Name() != f.op_type || s->domain() != f.domain || s->SinceVersion() != f.since_version) return nullptr;
      return s;
    } catch (const std::exception&) {
      return nullptr;
    }
  }

  std::mutex mu_;
  bool registry_built_ = false;
  std::unordered_map<std::string, std::vector<size_t>> by_op_;  // domain '\0' op -> functions, by since-version
  std::vector<std::unique_ptr<onnx::OpSchema>> built_;
};

Schemas& TheSchemas() {
  static Schemas* schemas = new Schemas;  // never destroyed: handed-out schemas live as long as the process
  return *schemas;
}

class Registry final : public onnx::ISchemaRegistry {
 public:
  const onnx::OpSchema* GetSchema(const std::string& key, const int max_inclusive_version,
                                  const std::string& domain) const override {
    return FindOnnxSchema(key, max_inclusive_version, domain);
  }
};

}  // namespace

const onnx::OpSchema* FindOnnxSchema(const std::string& op_type, int version, const std::string& domain) {
  return TheSchemas().Find(op_type, version, domain);
}

const onnx::ISchemaRegistry& OnnxSchemas() {
  static const Registry registry;
  return registry;
}

void EnsureOnnxSchemas() { TheSchemas().UseRegistry(); }

size_t KnownOnnxSchemaCount() { return std::size(kSchemaFunctions); }

}  // namespace kiln
