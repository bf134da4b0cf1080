// The data of `kiln plugins [--plugin PATH]... [--json]`: every loaded plugin (name, version, the ABI version it
// was built for and the one negotiated, its file and why it was loaded) with what it registered, the
// registrations shadowed by an earlier one of the same name (first wins), the plugins skipped, and the search
// directories.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "plugin/plugin_set.h"

namespace kiln::plugin {

// {"host_abi": "1.1", "search_path": [...],
//  "plugins": [{"name", "version", "abi_version", "negotiated_abi", "file", "origin", "description",
//               "registered": [{"kind", "name", "detail", "shadowed_by"?}], "fusion_rules": [...],
//               "targets": [names]}],
//  "shadowed": [{"kind", "name", "plugin", "kept_from"}], "skipped": [{"file", "origin", "reason"}]}
nlohmann::json PluginsToJson(const PluginSet& plugins);

// The same as text, one block per plugin:
//   hello 1.0.0  (ABI 1.1)  /path/libhello_plugin.so  [--plugin]
//       The SDK example: HelloIdentityPass and the hello.Double op
//       pass         HelloIdentityPass  node pass, switch hello.identityElimination
//       kernel       hello.Double  opset 1+, float
std::string PluginsToText(const PluginSet& plugins);

// The data of `kiln targets [--plugin PATH]... [--json]`: every target in effect, in load order.
// Deferred targets (ABI 1.7) are described first.
// {"targets": [{"name", "plugin", "file", "plugin_abi", "usable", "description", "engines", "formats",
//               "details": {...} or null, "error" when its description failed}],
//  "shadowed": [{"name", "plugin", "kept_from"}]}
// usable is false for a target registered by name only (before ABI 1.3), which cannot be --target, and for one
// whose description failed.
nlohmann::json TargetsToJson(const PluginSet& plugins);

// The same as text, one block per target:
//   test_npu  (plugin test_target, ABI 1.3)  /path/libkiln_test_plugin_target.so
//       A test NPU with two engines
//       engines: cube, vector, host
//       formats: ND, NC1HWC0
std::string TargetsToText(const PluginSet& plugins);

}  // namespace kiln::plugin
