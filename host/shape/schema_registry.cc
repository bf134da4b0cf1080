// FindOnnxSchema and EnsureOnnxSchemas: see schema_registry.h.
#include "shape/schema_registry.h"

#include <onnx/defs/operator_sets.h>
#include <onnx/defs/operator_sets_ml.h>
#include <onnx/defs/operator_sets_preview.h>
#include <onnx/defs/operator_sets_training.h>
#include <onnx/defs/schema.h>

#include <algorithm>
#include <atomic>
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

// Set once ONNX's registry is built by EnsureOnnxSchemas: from then on it may hold plugins' schemas too.
std::atomic<bool> registry_built{false};

std::string KeyOf(std::string_view domain, std::string_view op_type) {
  std::string key(domain);
  key += '\0';
  key += op_type;
  return key;
}

// The schemas built so far, and the functions by op, each op's in increasing since-version.
class LazySchemas {
 public:
  // Null when none applies; `fallback` set when a function's schema did not come out as listed (then ONNX's
  // registry answers).
  const onnx::OpSchema* Find(const std::string& op_type, int version, const std::string& domain, bool& fallback) {
    std::lock_guard<std::mutex> lock(mu_);
    if (by_op_.empty()) Index();
    auto it = by_op_.find(KeyOf(domain, op_type));
    if (it == by_op_.end()) return nullptr;
    const std::vector<size_t>& functions = it->second;
    auto after = std::upper_bound(functions.begin(), functions.end(), version,
                                  [](int v, size_t i) { return v < kSchemaFunctions[i].since_version; });
    if (after == functions.begin()) return nullptr;
    const size_t i = *(after - 1);
    if (!built_[i]) built_[i] = Build(kSchemaFunctions[i]);
    if (!built_[i]) fallback = true;
    return built_[i].get();
  }

 private:
  void Index() {
    built_.resize(std::size(kSchemaFunctions));
    for (size_t i = 0; i < std::size(kSchemaFunctions); ++i)
      by_op_[KeyOf(kSchemaFunctions[i].domain, kSchemaFunctions[i].op_type)].push_back(i);
    for (auto& [key, functions] : by_op_)
      std::sort(functions.begin(), functions.end(),
                [](size_t a, size_t b) { return kSchemaFunctions[a].since_version < kSchemaFunctions[b].since_version; });
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
  std::unordered_map<std::string, std::vector<size_t>> by_op_;
  std::vector<std::unique_ptr<onnx::OpSchema>> built_;
};

LazySchemas& Lazy() {
  static LazySchemas* schemas = new LazySchemas;  // never destroyed: handed-out schemas live as long as the process
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
  if (!registry_built.load(std::memory_order_acquire)) {
    bool fallback = false;
    const onnx::OpSchema* s = Lazy().Find(op_type, version, domain, fallback);
    if (!fallback) return s;
    EnsureOnnxSchemas();
  }
  return onnx::OpSchemaRegistry::Schema(op_type, version, domain);
}

const onnx::ISchemaRegistry& OnnxSchemas() {
  static const Registry registry;
  return registry;
}

void EnsureOnnxSchemas() {
  // Any lookup builds the whole registry first (OpSchemaRegistry::map()'s static initialisation).
  (void)onnx::OpSchemaRegistry::Schema("Identity", 1, "");
  registry_built.store(true, std::memory_order_release);
}

size_t KnownOnnxSchemaCount() { return std::size(kSchemaFunctions); }

}  // namespace kiln
