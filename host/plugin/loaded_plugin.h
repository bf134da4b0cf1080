// The record of one loaded plugin: who it is (name, versions, file, why it was loaded), what it registered (and
// which of those were shadowed by an earlier registration of the same name), the fusion rule packs and targets
// kept for the engines that will read them, and what must happen before the library is unloaded (its
// registrations' destroy callbacks, its schemas' bindings turned off). `kiln plugins` prints these records.
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

struct LoadedPlugin {
  std::string name, version, description;
  std::string file;    // the absolute path it was loaded from
  std::string origin;  // why it was loaded: "--plugin", "pipeline O1.yaml:9:10", "KILN_PLUGIN_PATH", ...
  uint32_t abi_version = 0;         // what the plugin was built for
  uint32_t negotiated_version = 0;  // what both sides speak (the smaller minor)
  std::vector<Registration> registrations;
  std::vector<FusionRulePack> fusion_rules;  // those in effect (not shadowed)
  std::vector<std::string> targets;          // those in effect

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
