// Plugin passes as the driver sees them: adapters implementing kiln::NodePass and kiln::GraphPass over a
// plugin's callbacks, and the PassInfo that puts one in the PassRegistry (its own options become the pass's
// pipeline arguments).
//
// Failure. A callback that returns a status (or, through the C++ wrapper, throws) fails the pass: the adapter
// throws a PluginError naming the plugin, the pass and the status, and the driver warns and goes on (or stops
// under --strict). Before throwing, a node pass undoes its own changes: those of the failing call, and those of
// its earlier calls in the same walk, so the graph is left as it was before the pass (the driver, which
// journals each call on its own, would otherwise keep the earlier ones); the pass is then skipped for the rest
// of the walk. Earlier calls are undone only while no other plugin pass changed the graph after them (undoing
// them under another pass's later change could corrupt the graph): in that case only the failing call is
// undone, and the message says so. Changes by host passes in between are not tracked; the host's own node passes
// do not change graphs. A graph pass is one transaction of the driver already.
//
// Analyses. While a callback runs, Model::preserved_analyses holds the pass's KilnPassInfo.preserved_analyses (the
// analyses its changes keep valid, see host/analysis); the previous value comes back when the callback returns,
// whether it succeeded or not, before a failed call is rolled back.
//
// An adapter serves one walk (the Compiler makes new pass objects for each stage and each walk): the earlier
// calls it undoes must not outlive the walk's garbage collection.
#pragma once

#include <kiln/kiln_plugin.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "driver/op_type_set.h"
#include "options/option_def.h"
#include "passes/pass_registry.h"
#include "plugin/host_api.h"

namespace kiln {
class PassContext;
class ResolvedOptions;

namespace plugin {

struct PluginPassDef {
  std::string plugin, file;  // who registered it
  std::string name, description, switch_option;
  bool node_pass = true;
  KilnRunOnNodeFn run_on_node = nullptr;
  KilnRunOnGraphFn run_on_graph = nullptr;
  KilnRunOnGraphFn on_finish_graph = nullptr;  // ABI 1.1, node passes only
  uint32_t preserved_analyses = 0;  // ABI 1.2: KILN_ANALYSIS_* bits, Model::preserved_analyses during its callbacks
  KilnPreparePassFn prepare = nullptr;  // ABI 1.9: before the model is read (PassInfo::prepare)
  std::optional<OpTypeSet> op_types;  // ABI 1.12, node passes only; none for every node
  void* user_data = nullptr;
  std::vector<OptionDef> options;  // the pass's own options (short names), defaults parsed
  const HostServices* services = nullptr;
};

// The PassRegistry entry for a plugin pass.
PassInfo MakePluginPassInfo(std::shared_ptr<const PluginPassDef> def);

// The options of the compile in progress on this thread, which pass_option_* reads (full option names, and the
// level a pass's own options take their defaults at). The Compiler holds one around Run.
class PluginCompileScope {
 public:
  explicit PluginCompileScope(const ResolvedOptions& options);
  ~PluginCompileScope();
  PluginCompileScope(const PluginCompileScope&) = delete;
  PluginCompileScope& operator=(const PluginCompileScope&) = delete;

 private:
  const ResolvedOptions* outer_;
};

}  // namespace plugin
}  // namespace kiln

// The pass context a plugin callback receives.
struct KilnPassContext {
  kiln::PassContext* ctx = nullptr;
  const kiln::plugin::PluginPassDef* def = nullptr;
  const kiln::PassArgs* args = nullptr;
};
