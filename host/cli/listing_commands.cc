// kiln options [--level Ox] [--json], kiln passes [--json], kiln plugins [--json], kiln targets [--json].
// Each takes --plugin PATH (repeatable) and also lists what the plugins of the search path registered.
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "compile/compiler.h"
#include "options/options_listing.h"
#include "plugin/plugin_listing.h"
#include "support/error.h"

namespace kiln::cli {
namespace {

// --plugin PATH (repeatable), then the search path's plugins.
std::shared_ptr<std::vector<std::string>> AddPluginOption(CLI::App* cmd) {
  auto paths = std::make_shared<std::vector<std::string>>();
  cmd->add_option("--plugin", *paths, "Load a plugin file or every plugin in a directory (repeatable)");
  return paths;
}

}  // namespace

void LoadPluginsAndSearchPath(Compiler& compiler, const std::vector<std::string>& paths) {
  compiler.LoadPlugins(paths);
  compiler.LoadSearchPathPlugins();
}

Action AddOptionsCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("options", "List every option: levels, default per level, allowed values, where "
                                            "it may be set, help, and who registered it");
  auto level = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("--level", *level, "Show only the options active at this level (O0..O3)");
  cmd->add_flag("--json", *json, "Print JSON instead of a table");
  auto plugins = AddPluginOption(cmd);
  return [level, json, plugins] {
    Compiler compiler;
    LoadPluginsAndSearchPath(compiler, *plugins);
    std::optional<OptLevel> lv;
    if (!level->empty()) {
      lv = ParseOptLevel(*level);
      if (!lv) throw UsageError("--level: '" + *level + "' is not one of: O0, O1, O2, O3");
    }
    if (*json) std::cout << OptionsToJson(compiler.options(), lv).dump(2) << "\n";
    else std::cout << OptionsToTable(compiler.options(), lv);
    return 0;
  };
}

Action AddPassesCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("passes", "List every pass with its kind, owner, switch option and arguments");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print JSON instead of text");
  auto plugins = AddPluginOption(cmd);
  return [json, plugins] {
    Compiler compiler;
    LoadPluginsAndSearchPath(compiler, *plugins);
    nlohmann::json out = nlohmann::json::array();
    for (const PassInfo* p : compiler.passes().All()) {
      nlohmann::json args = nlohmann::json::array();
      for (const auto& a : p->args)
        args.push_back({{"name", a.name}, {"default", a.default_value}, {"allowed", a.allowed}, {"help", a.help}});
      nlohmann::json shadows = nlohmann::json::array();  // later registrations of the name, ignored (first wins)
      for (const ShadowedPass& s : compiler.passes().shadowed())
        if (s.name == p->name) shadows.push_back(s.owner);
      out.push_back({{"name", p->name},
                     {"kind", p->kind == PassInfo::Kind::kNode ? "node" : "graph"},
                     {"owner", p->owner},
                     {"switch_option", p->switch_option},
                     {"args", args},
                     {"op_types", p->op_types},  // a node pass runs on these only; empty: every node
                     {"shadows", shadows},
                     {"help", p->help}});
    }
    if (*json) {
      std::cout << out.dump(2) << "\n";
      return 0;
    }
    for (const auto& p : out) {
      std::cout << p["name"].get<std::string>() << "  (" << p["kind"].get<std::string>() << " pass, "
                << p["owner"].get<std::string>() << ")";
      if (!p["switch_option"].get<std::string>().empty())
        std::cout << "  switch: " << p["switch_option"].get<std::string>();
      std::cout << "\n    " << p["help"].get<std::string>() << "\n";
      if (!p["op_types"].empty()) {
        std::cout << "    runs on";
        for (const auto& t : p["op_types"]) std::cout << " " << t.get<std::string>();
        std::cout << "\n";
      }
      for (const auto& a : p["args"])
        std::cout << "    arg " << a["name"].get<std::string>() << " (default " << a["default"].get<std::string>()
                  << "): " << a["help"].get<std::string>() << "\n";
      for (const auto& s : p["shadows"])
        std::cout << "    shadows the registration of " << s.get<std::string>() << " (first wins)\n";
    }
    return 0;
  };
}

Action AddPluginsCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "plugins", "List every loaded plugin (--plugin, KILN_PLUGIN_PATH, the install directory): name, version, ABI "
                 "version, file, what it registered, and registrations shadowed by an earlier one of the same name");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print JSON instead of text");
  auto plugins = AddPluginOption(cmd);
  return [json, plugins] {
    Compiler compiler;
    LoadPluginsAndSearchPath(compiler, *plugins);
    if (*json) std::cout << plugin::PluginsToJson(compiler.plugins()).dump(2) << "\n";
    else std::cout << plugin::PluginsToText(compiler.plugins());
    return 0;
  };
}

Action AddTargetsCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "targets", "List every hardware target the loaded plugins register (what `kiln compile --target NAME` takes): "
                 "name, plugin, description, engines, formats, and with --json the target's details");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print JSON instead of text");
  auto plugins = AddPluginOption(cmd);
  return [json, plugins] {
    Compiler compiler;
    LoadPluginsAndSearchPath(compiler, *plugins);
    if (*json) std::cout << plugin::TargetsToJson(compiler.plugins()).dump(2) << "\n";
    else std::cout << plugin::TargetsToText(compiler.plugins());
    return 0;
  };
}

}  // namespace kiln::cli
