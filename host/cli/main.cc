// kiln: the command-line compiler. See README.md for the subcommands and the exit codes:
// 0 ok, 1 usage, 2 invalid model or input, 3 config or option, 4 plugin, 5 internal or verification failure.
#include <google/protobuf/stubs/logging.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>

#include "cli/commands.h"
#include "cli/option_flags.h"
#include "plugin/plugin_loader.h"
#include "support/display_text.h"
#include "support/error.h"

namespace {

// protobuf would print its own warnings (and abort on fatal ones); Kiln reports parse failures itself.
void QuietProtobuf(google::protobuf::LogLevel, const char*, int, const std::string&) {}

// Ends the process once a command has returned: its own objects are gone (the plugins' user data destroyed; their
// libraries stay mapped, see main), so what is left is the static teardown of libraries (ONNX's schemas among
// them), which would add a tenth to a small model's compile and frees nothing the OS does not take back. The streams
// are flushed first. A sanitizer build exits normally, so that the leak checker still runs.
[[noreturn]] void Exit(int rc) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
#if defined(__SANITIZE_ADDRESS__)
  std::exit(rc);
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  std::exit(rc);
#endif
#endif
  std::_Exit(rc);
}

}  // namespace

int main(int argc, char** argv) {
  google::protobuf::SetLogHandler(QuietProtobuf);
  // Every command ends the process when it is done with its plugins: none is unmapped before that (plugin_loader.h).
  kiln::plugin::PluginLibrary::KeepMappedUntilExit();
  CLI::App app{"kiln: a plugin-based graph compiler for ONNX models"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "kiln " KILN_VERSION);
  std::vector<std::pair<CLI::App*, kiln::cli::Action>> actions;
  auto add = [&](kiln::cli::Action (*fn)(CLI::App&)) {
    size_t before = app.get_subcommands({}).size();
    kiln::cli::Action a = fn(app);
    actions.emplace_back(app.get_subcommands({})[before], std::move(a));
  };
  add(kiln::cli::AddBisectCommand);
  add(kiln::cli::AddCompileCommand);
  add(kiln::cli::AddInfoCommand);
  add(kiln::cli::AddOptionsCommand);
  add(kiln::cli::AddPassesCommand);
  add(kiln::cli::AddPluginsCommand);
  add(kiln::cli::AddRunCommand);
  add(kiln::cli::AddTargetsCommand);
  add(kiln::cli::AddVerifyCommand);
  try {
    std::vector<std::string> args(argv, argv + argc);
    kiln::cli::GivenOptionFlags() = kiln::cli::ExtractOptionFlags(args);
    std::vector<const char*> rest;
    for (const auto& s : args) rest.push_back(s.c_str());
    app.parse(static_cast<int>(rest.size()), const_cast<char**>(rest.data()));
  } catch (const kiln::Error& e) {
    std::cerr << "kiln: error: " << kiln::EscapeForDisplay(e.what()) << "\n";
    return static_cast<int>(e.code());
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : static_cast<int>(kiln::ExitCode::kUsage);
  }
  try {
    for (auto& [sub, action] : actions) {
      if (!sub->parsed()) continue;
      int rc = action();
      Exit(rc);
    }
    return static_cast<int>(kiln::ExitCode::kUsage);
  } catch (const kiln::Error& e) {
    std::cerr << "kiln: error: " << kiln::EscapeForDisplay(e.what()) << "\n";
    return static_cast<int>(e.code());
  } catch (const std::bad_alloc&) {
    std::cerr << "kiln: error: out of memory\n";
    return static_cast<int>(kiln::ExitCode::kInternal);
  } catch (const std::exception& e) {
    std::cerr << "kiln: internal error: " << kiln::EscapeForDisplay(e.what()) << "\n";
    return static_cast<int>(kiln::ExitCode::kInternal);
  }
}
