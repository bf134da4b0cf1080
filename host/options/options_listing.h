// The data of `kiln options [--level Ox] [--json]`: every registered option with the levels it is active at, its
// default per level, what it accepts, where it may be set, its help and its owner. Without a level every option
// and every level is listed; with one, only the options active at it and their default there.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "options/option_registry.h"

namespace kiln {

// {"level": "O1"|null, "options": [{"name", "type", "levels": ["O1", ...], "defaults": {"O1": true, ...},
//   "allowed": [...] (bool and enum) or "allowed_text", "settable": ["cli", ...], "help", "owner"}]}
nlohmann::json OptionsToJson(const OptionRegistry& registry, std::optional<OptLevel> level = std::nullopt);

// The same as an aligned text table, one block per option:
//   oo.constantFolding  bool  O1+  default O1..O3: true   [cli session graph pipeline]  (folding)
//       allowed: true, false
//       Constant folding and its family ...
std::string OptionsToTable(const OptionRegistry& registry, std::optional<OptLevel> level = std::nullopt);

}  // namespace kiln
