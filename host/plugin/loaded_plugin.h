// The record of one loaded plugin: who it is (name, versions, file, why it was loaded), what it registered (and
// which of those were shadowed by an earlier registration of the same name), the fusion rule packs and targets
// kept for the engines that will read them, and what must happen before the library is unloaded (its
// registrations' destroy callbacks, its schemas' bindings turned off). `kiln plugins` prints these records.
//
// A target (PluginTarget) keeps what `kiln targets` lists and, from ABI 1.3 on, the callbacks the host forwards
// every pass's question to while it is the active one (host/target/active_target.h). A target of a 1.0-1.2
// plugin, or a 1.3 one whose 1.3 fields are all zero, is a bare name: listed, never active.
#pragma once

#include <kiln/kiln_plugin.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kiln::plugin {

class PluginLibrary;
struct SchemaBinding;

struct Registration {
  enum class Kind { kPass, kKernel, kOpSchema, kOption, kFusionRules, kTarget };
  Kind kind;
  std::string name;         // pass name, "domain.Op", option name, pack or target name
  std::string detail;       // one line for listings: "node pass, switch hello.identityElimination"
  std::string shadowed_by;  // non-empty: an earlier registration of this name is in effect (first wins)
};

// "pass", "kernel", "op schema", "option", "fusion rules", "target".
const char* KindName(Registration::Kind kind);

struct FusionRulePack {
  std::string name, yaml, source_name;
};

struct HostServices;

struct PluginTarget {
  std::string name;
  std::string plugin, file;       // who registered it
  uint32_t plugin_abi = 0;        // the ABI version negotiated with that plugin
  std::string description;        // may be empty
  std::vector<std::string> engines, formats;
  std::string details_json;       // a JSON object's text, or empty
  bool bare = true;               // a name only: no engines, no callbacks (before ABI 1.3)
  void* user_data = nullptr;
  KilnTargetEngineFn node_engine = nullptr;        // set unless bare
  KilnTargetEstimateFn estimate = nullptr;         // set unless bare
  KilnTargetSyncCostFn sync_cost = nullptr;        // may be null: no barriers
  KilnTargetTransferCostFn transfer_cost = nullptr;  // may be null: formats are free
  KilnTargetFormatFn preferred_format = nullptr;     // may be null: any format
  KilnTargetStorageShapeFn storage_shape = nullptr;  // may be null (before 1.6, or layouts not described)
  // ABI 1.7, deferred: set until DescribeTarget has filled the fields above from it (plugin_registration.h); the
  // message of a describe that failed, kept so the plugin is not asked again.
  KilnTargetDescribeFn describe = nullptr;
  std::string describe_error;
  const HostServices* services = nullptr;          // the plugin's, for the frames its callbacks run in
};

struct LoadedPlugin {
  std::string name, version, description;
  std::string file;    // the absolute path it was loaded from
  std::string origin;  // why it was loaded: "--plugin", "pipeline O1.yaml:9:10", "KILN_PLUGIN_PATH", ...
  uint32_t abi_version = 0;         // what the plugin was built for
  uint32_t negotiated_version = 0;  // what both sides speak (the smaller minor)
  std::vector<Registration> registrations;
  std::vector<FusionRulePack> fusion_rules;  // those in effect (not shadowed)
  std::vector<std::shared_ptr<PluginTarget>> targets;  // those in effect (not shadowed); described in place

  // Before unloading: schema bindings turned off, then destroy_user_data for every accepted registration (in
  // reverse order), then the library closed.
  std::vector<std::shared_ptr<SchemaBinding>> schema_bindings;
  std::vector<std::pair<KilnDestroyFn, void*>> destroyers;
  std::unique_ptr<PluginLibrary> library;

  LoadedPlugin();
  ~LoadedPlugin();
  LoadedPlugin(const LoadedPlugin&) = delete;
  LoadedPlugin& operator=(const LoadedPlugin&) = delete;
};

}  // namespace kiln::plugin
