// Kiln's option flags on the command line: `--oo.constantFolding=false` or `--oo.level O1`. Any long flag whose
// name has a dot is an option of the registry (host or plugin), so they are taken out of the arguments before
// CLI11 parses the fixed flags, and checked against the registry once plugins are loaded.
//
// The option aliases of core_options.h (`--target NAME`, `--fusion-pack FILE`, `--fusion-report FILE`) are fixed
// flags of `kiln compile` that stand for an option: they apply after the dotted flags, an appending one adding to
// the value a dotted flag gave its option, and paths are made absolute from the working directory.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compile/compile_flow.h"

namespace kiln::cli {

struct OptionFlag {
  std::string name;   // "oo.level"
  std::string value;  // "O1"
  std::string text;   // as written, for messages: "--oo.level O1"
};

// Removes the option flags from `args` (args[0] is the program) and returns them in order. A dotted flag with no
// value is a usage error.
std::vector<OptionFlag> ExtractOptionFlags(std::vector<std::string>& args);

// The flags given to this process (set by main before parsing).
std::vector<OptionFlag>& GivenOptionFlags();

// The values given to each alias flag, in OptionAliases() order.
struct AliasFlagValues {
  std::vector<std::vector<std::string>> values;
};
// Adds every alias that has a CLI flag to `cmd`.
std::shared_ptr<AliasFlagValues> AddAliasFlags(CLI::App* cmd);
// The option settings the given alias flags stand for, to apply after `flags`.
std::vector<OptionFlag> AliasSettings(const AliasFlagValues& given, const std::vector<OptionFlag>& flags);

// What a compiling command (compile, bisect) sets: this process's dotted flags, then its alias settings, as the
// option texts CompileFlow::SetOptions takes.
std::vector<OptionText> GivenOptionTexts(const AliasFlagValues& aliases);

// Sets the log level from --log-level, or throws a usage error listing the levels.
void SetLogLevelFlag(const std::string& level);

}  // namespace kiln::cli
