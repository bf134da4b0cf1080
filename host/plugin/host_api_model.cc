// ABI 1.2 slots for the model: its main graph, IR version, opset imports and metadata, stable node ids, and the
// fusion rule packs the loaded plugins registered. Changes go through the journal like every graph change.
#include <algorithm>
#include <stdexcept>

#include "ir/model.h"
#include "onnx/annotations_key.h"
#include <nlohmann/json.hpp>

#include "compile/compiler.h"
#include "driver/pass_context.h"
#include "plugin/host_api.h"
#include "plugin/plugin_pass.h"
#include "plugin/plugin_set.h"

namespace kiln::plugin {
namespace {

Model& LiveModel(KilnModel* m) {
  if (!m) throw std::invalid_argument("model is NULL");
  return *FromKiln(m);
}

KilnModel* GraphModel(KilnGraph* g) { return g ? ToKiln(FromKiln(g)->model()) : nullptr; }
KilnGraph* ModelGraph(KilnModel* m) { return m ? ToKiln(&FromKiln(m)->graph()) : nullptr; }
int64_t ModelIrVersion(KilnModel* m) { return m ? FromKiln(m)->ir_version : 0; }

size_t ModelOpsetCount(KilnModel* m) { return m ? FromKiln(m)->opset_imports.size() : 0; }
const char* ModelOpsetAt(KilnModel* m, size_t i, int64_t* out_version) {
  if (!m || i >= FromKiln(m)->opset_imports.size()) return nullptr;
  const OpsetImport& o = FromKiln(m)->opset_imports[i];
  if (out_version) *out_version = o.version;
  return o.domain.c_str();
}

KilnStatus* ModelEnsureOpset(KilnModel* m, const char* domain, int64_t version) {
  return Guarded([&] {
    Model& model = LiveModel(m);
    if (!domain) throw std::invalid_argument("domain is NULL");
    if (version < 0) throw std::invalid_argument("version is negative");
    if (std::optional<int64_t> have = model.OpsetVersion(domain)) {
      if (version != 0 && *have != version)
        throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "the model imports domain '" + std::string(domain) +
                                                             "' at version " + std::to_string(*have) + ", not " +
                                                             std::to_string(version));
      return;
    }
    model.EnsureOpset(domain, version == 0 ? 1 : version);
  });
}

size_t ModelMetadataCount(KilnModel* m) { return m ? FromKiln(m)->metadata_props.size() : 0; }
const char* ModelMetadataAt(KilnModel* m, size_t i, const char** out_value) {
  if (!m || i >= FromKiln(m)->metadata_props.size()) return nullptr;
  const auto& kv = FromKiln(m)->metadata_props[i];
  if (out_value) *out_value = kv.second.c_str();
  return kv.first.c_str();
}

KilnStatus* ModelSetMetadata(KilnModel* m, const char* key, const char* value) {
  return Guarded([&] {
    Model& model = LiveModel(m);
    if (!key || !*key) throw std::invalid_argument("key is NULL or empty");
    if (key == kAnnotationsMetadataKey)
      throw std::invalid_argument(std::string(key) + " is the host's: set annotations with node_set_annotation");
    auto& props = model.metadata_props;
    auto old = props;
    auto it = std::find_if(props.begin(), props.end(), [&](const auto& kv) { return kv.first == key; });
    if (value == nullptr) {
      if (it == props.end()) return;
      props.erase(it);
    } else if (it != props.end()) {
      if (it->second == value) return;
      it->second = value;
    } else {
      props.emplace_back(key, value);
    }
    Journal& j = model.journal();
    if (j.active()) j.Record([&model, old] { model.metadata_props = old; });
  });
}

uint64_t NodeId(KilnNode* n) { return n ? FromKiln(n)->id() : 0; }
KilnNode* ModelFindNode(KilnModel* m, uint64_t id) {
  return GuardedValue<KilnNode*>(nullptr, [&] { return m ? ToKiln(FromKiln(m)->FindNode(id)) : nullptr; });
}

// ---- structured report entries of a pass (pass_add_report)
KilnStatus* PassAddReport(KilnPassContext* c, const char* key, const char* json) {
  return Guarded([&] {
    if (!c || !c->ctx) throw std::invalid_argument("ctx is NULL");
    if (!key || !*key) throw std::invalid_argument("key is NULL or empty");
    if (!json) throw std::invalid_argument("json is NULL");
    nlohmann::json value = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded()) throw std::invalid_argument("the report for '" + std::string(key) + "' is not JSON");
    c->ctx->AddReport(key, std::move(value));
  });
}

// ---- fusion rule packs of the loaded plugins
std::vector<const FusionRulePack*> RulePacks() {
  std::vector<const FusionRulePack*> out;
  const HostServices* s = CallFrame::Current().services();
  if (!s || !s->plugins) return out;
  for (const auto& p : s->plugins->plugins())
    for (const FusionRulePack& pack : p->fusion_rules) out.push_back(&pack);
  return out;
}
size_t FusionRulePackCount() {
  return GuardedValue<size_t>(0, [] { return RulePacks().size(); });
}
const char* FusionRulePackAt(size_t i, const char** out_yaml, const char** out_source) {
  return GuardedValue<const char*>(nullptr, [&]() -> const char* {
    std::vector<const FusionRulePack*> packs = RulePacks();
    if (i >= packs.size()) return nullptr;
    if (out_yaml) *out_yaml = packs[i]->yaml.c_str();
    if (out_source) *out_source = packs[i]->source_name.c_str();
    return packs[i]->name.c_str();
  });
}

const char* HostConfigDir() {
  static const std::string dir = ConfigDir().string();
  return dir.c_str();
}

}  // namespace

void FillModelSlots(KilnHostApi& api) {
  api.graph_model = GraphModel;
  api.model_graph = ModelGraph;
  api.model_ir_version = ModelIrVersion;
  api.model_opset_count = ModelOpsetCount;
  api.model_opset_at = ModelOpsetAt;
  api.model_ensure_opset = ModelEnsureOpset;
  api.model_metadata_count = ModelMetadataCount;
  api.model_metadata_at = ModelMetadataAt;
  api.model_set_metadata = ModelSetMetadata;
  api.node_id = NodeId;
  api.model_find_node = ModelFindNode;
  api.pass_add_report = PassAddReport;
  api.fusion_rule_pack_count = FusionRulePackCount;
  api.fusion_rule_pack_at = FusionRulePackAt;
  api.host_config_dir = HostConfigDir;
}

}  // namespace kiln::plugin
