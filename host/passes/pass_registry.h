// Every pass Kiln can run, host built-ins and plugin passes alike: its name, kind (node or graph), the option
// that switches it, its arguments with defaults, its owner, and a factory. Registration is local: the host's
// built-ins register themselves in builtin_passes.cc, each plugin through the ABI. Implements the PassCatalog
// the pipeline loader validates against.
//
// Two registrations of one name: the first wins (plugins are loaded in search-path order: --plugin, the
// pipeline's plugins, KILN_PLUGIN_PATH, the install directory), and the later one is recorded as shadowed so that
// `kiln plugins` and `kiln passes` can report it.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "driver/pass.h"
#include "pipeline/pass_catalog.h"

namespace kiln {

// A pass's arguments as written in the pipeline (`args: {need_fold: false}`), completed with its defaults.
using PassArgs = std::map<std::string, std::string, std::less<>>;

struct PassArgDef {
  std::string name;
  std::string default_value;
  std::vector<std::string> allowed;  // empty: any text
  std::string help;
};

struct PassInfo {
  enum class Kind { kNode, kGraph };
  std::string name;
  Kind kind = Kind::kNode;
  std::string switch_option;  // "" when no option switches it
  std::string owner = "host";  // "host" or the plugin's name
  std::string help;
  std::vector<PassArgDef> args;
  std::vector<std::string> op_types;  // node passes: the op types they run on (ABI 1.12); empty for every node
  std::function<std::unique_ptr<NodePass>(const PassArgs&)> make_node;
  std::function<std::unique_ptr<GraphPass>(const PassArgs&)> make_graph;
  // Called once for each compile that runs the pass, before the model is read (a plugin pass's
  // KilnPassInfo.prepare, ABI 1.9); empty for none. Throws what the pass reported.
  std::function<void()> prepare;
};

struct ShadowedPass {
  std::string name;
  std::string owner;      // whose registration was ignored
  std::string kept_from;  // whose registration is in effect
};

class PassRegistry : public PassCatalog {
 public:
  // Adds a pass; returns false (and records it as shadowed) when the name is taken.
  bool Add(PassInfo info);
  const PassInfo* Find(std::string_view name) const;
  std::vector<const PassInfo*> All() const;
  const std::vector<ShadowedPass>& shadowed() const { return shadowed_; }

  // Fills in defaults and checks values; throws ConfigError naming the pass and argument.
  PassArgs CompleteArgs(const PassInfo& info, const std::vector<std::pair<std::string, std::string>>& given) const;

  // PassCatalog
  bool HasPass(std::string_view name) const override { return Find(name) != nullptr; }
  std::vector<std::string> PassNames() const override;
  bool IsGraphPass(std::string_view name) const override;
  std::string SwitchOptionOf(std::string_view pass) const override;
  std::string CheckArg(std::string_view pass, std::string_view key, std::string_view value) const override;

 private:
  std::map<std::string, PassInfo, std::less<>> passes_;
  std::vector<ShadowedPass> shadowed_;
};

// Registers the host's own passes (NoOpPass, ...).
void RegisterBuiltinPasses(PassRegistry& registry);

}  // namespace kiln
