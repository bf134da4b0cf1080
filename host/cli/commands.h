// The `kiln` subcommands. Each registers itself on the CLI11 app and runs when chosen; failures are thrown as
// kiln::Error and turned into the documented exit code by main().
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace kiln {
class Compiler;
}

namespace kiln::cli {

// A subcommand's body, run after parsing; returns the exit code.
using Action = std::function<int()>;

Action AddBisectCommand(CLI::App& app);
Action AddCompileCommand(CLI::App& app);
Action AddInfoCommand(CLI::App& app);
Action AddOptionsCommand(CLI::App& app);
Action AddPassesCommand(CLI::App& app);
Action AddPluginsCommand(CLI::App& app);
Action AddRunCommand(CLI::App& app);
Action AddTargetsCommand(CLI::App& app);
// Loads the --plugin paths, then the plugins of KILN_PLUGIN_PATH and the install directory.
void LoadPluginsAndSearchPath(Compiler& compiler, const std::vector<std::string>& paths);
Action AddVerifyCommand(CLI::App& app);

}  // namespace kiln::cli
