// What a plugin registers during register_plugin, checked and held until the plugin's register function returns:
// only then, and only if it succeeded, does anything reach the host's registries (which cannot take a
// registration back). A plugin whose registration fails leaves no trace but its destroy callbacks, which are
// called before it is unloaded.
//
// Names taken already (by the host or an earlier plugin) follow the first-wins rule: the earlier registration
// stays in effect and this one is recorded as shadowed in the plugin's record. A pass's switch option that no
// one registered is created as a bool defaulting to true, owned by the plugin.
//
// Targets: KilnTargetInfo's 1.3 fields are read only when its struct_size covers them and the negotiated ABI is
// 1.3 or newer. When any of them is set, the target must name at least one engine (non-empty, no name twice) and
// give node_engine and estimate; details_json, when given, must be a JSON object. Otherwise (a 1.0-1.2 plugin, or
// the 1.3 fields all zero) it registers as a bare name, as before 1.3. A 1.7 target with describe gives only its
// name (and description) here: the rest comes from describe when the target is first used (DescribeTarget).
#pragma once

#include <kiln/kiln_plugin.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/kernel_registry.h"
#include "options/option_registry.h"
#include "passes/pass_registry.h"
#include "plugin/loaded_plugin.h"
#include "plugin/plugin_pass.h"
#include "plugin/plugin_schema.h"

namespace kiln::plugin {

// Names registered across all plugins of one PluginSet, for the first-wins rule where the host's registries
// keep no owner (kernels, rule packs, targets).
struct PluginNames {
  std::map<std::string, std::string> kernels;  // "domain.Op" -> first plugin
  std::map<std::string, std::string> fusion_rules;
  std::map<std::string, std::string> targets;
};

struct HostRegistries {
  OptionRegistry& options;
  PassRegistry& passes;
  KernelRegistry& kernels;
  PluginNames& names;
};

class PendingRegistration {
 public:
  PendingRegistration(LoadedPlugin& plugin, const HostServices* services);
  ~PendingRegistration();  // calls the destroy callbacks of what was accepted but never committed
  PendingRegistration(const PendingRegistration&) = delete;
  PendingRegistration& operator=(const PendingRegistration&) = delete;

  // The register_* slots: each checks its struct (size, required fields, callbacks) and throws SlotError, with
  // nothing kept, when it is refused.
  void AddPass(const KilnPassInfo* info);
  void AddKernel(const KilnKernelInfo* info);
  void AddOpSchema(const KilnOpSchemaInfo* info);
  void AddFusionRules(const KilnFusionRulePackInfo* info);
  void AddTarget(const KilnTargetInfo* info);
  void AddOption(const KilnOptionInfo* info);

  // Everything goes into the registries and the plugin's record. Throws PluginError when ONNX refuses a schema.
  void Commit(HostRegistries registries);

 private:
  struct PendingKernel {
    KernelDef def;
    std::string key;  // "domain.Op"
    std::string detail;
  };
  struct PendingSchema {
    OpSchemaSpec spec;
    KilnInferShapesFn infer = nullptr;
    void* user_data = nullptr;
  };
  void Keep(KilnDestroyFn destroy, void* user_data);
  void Record(Registration::Kind kind, std::string name, std::string detail, std::string shadowed_by = {});
  OptionDef OptionFrom(const KilnOptionInfo* info, bool own) const;

  LoadedPlugin& plugin_;
  const HostServices* services_;
  std::vector<std::shared_ptr<PluginPassDef>> passes_;
  std::vector<PendingKernel> kernels_;
  std::vector<PendingSchema> schemas_;
  std::vector<OptionDef> options_;
  std::vector<FusionRulePack> rule_packs_;
  std::vector<std::shared_ptr<PluginTarget>> targets_;
  std::vector<std::pair<KilnDestroyFn, void*>> destroyers_;
  bool committed_ = false;
};

// A deferred target (ABI 1.7, KilnTargetInfo.describe) asks its plugin for the rest of its description, once; a
// target that is not deferred, or is described already, is left as it is. Throws PluginError naming the target
// when describe fails or gives what a registration would be refused for (and on every later call).
void DescribeTarget(PluginTarget& t);

}  // namespace kiln::plugin

// The registrar a plugin's register function receives: open only while that function runs.
struct KilnRegistrar {
  kiln::plugin::PendingRegistration* pending = nullptr;
  bool open = false;
};
