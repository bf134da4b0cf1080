// The option registry (GE's OptionRegistry): every option the host and the loaded plugins know, by name. The host
// registers its core options (core_options.h); a plugin registers its own through the ABI, and a pass names the
// option that switches it. Filled at start-up, read-only afterwards.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "options/option_def.h"

namespace kiln {

class OptionRegistry {
 public:
  // Adds `def` after checking it: a new name, defaults that parse and pass the checker, a default at its lowest
  // level, an enum with allowed values. A broken definition is an InternalError for the host's own options and a
  // PluginError naming the owner for a plugin's.
  void Add(OptionDef def);

  const OptionDef* Find(std::string_view name) const;
  // As Find, but an unknown name is a ConfigError "unknown option 'x'; did you mean 'y'?".
  const OptionDef& Get(std::string_view name) const;
  // Parses and checks a value; a refused value is a ConfigError naming the option and what it accepts.
  OptionValue Parse(std::string_view name, std::string_view text) const;

  // Every option, ordered by name.
  std::vector<const OptionDef*> All() const;
  std::vector<std::string> Names() const;
  // "unknown option 'x'" with the nearest registered name, for callers that report the error themselves.
  std::string UnknownOptionMessage(std::string_view name) const;

 private:
  std::map<std::string, OptionDef, std::less<>> options_;
};

}  // namespace kiln
