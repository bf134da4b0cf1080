// Kiln's option flags on the command line: `--oo.constantFolding=false` or `--oo.level O1`. Any long flag whose
// name has a dot is an option of the registry (host or plugin), so they are taken out of the arguments before
// CLI11 parses the fixed flags, and checked against the registry once plugins are loaded.
#pragma once

#include <string>
#include <utility>
#include <vector>

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

}  // namespace kiln::cli
