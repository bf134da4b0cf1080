// The definition of one option (GE's OoInfo): name, value type, the lowest level at which it is active, a default
// per level, a checker, the places it may be set, help text and the owner that registered it. Built fluently:
//
//   registry.Add(OptionDef::Bool("oo.constantFolding").ActiveFrom(OptLevel::kO1).Default("true").Help("..."));
//
// Defaults are written as text, as a user would, and parsed when the registry accepts the definition.
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "options/opt_level.h"
#include "options/option_value.h"

namespace kiln {

// Where an option may be set; an option holds a bitmask of these.
enum class OptionPlace : unsigned {
  kCli = 1u << 0,       // `kiln compile --name=value`
  kSession = 1u << 1,   // the embedding API's session (global) options
  kGraph = 1u << 2,     // per-graph options
  kPipeline = 1u << 3,  // a pipeline file's `options:` (defaults for its level)
};
using OptionPlaces = unsigned;
inline constexpr OptionPlaces kAllOptionPlaces = 0xFu;

inline constexpr OptionPlaces operator|(OptionPlace a, OptionPlace b) {
  return static_cast<unsigned>(a) | static_cast<unsigned>(b);
}
inline constexpr OptionPlaces operator|(OptionPlaces a, OptionPlace b) { return a | static_cast<unsigned>(b); }
inline constexpr bool AllowsPlace(OptionPlaces places, OptionPlace place) {
  return (places & static_cast<unsigned>(place)) != 0;
}
// "cli", "session", "graph", "pipeline".
std::string_view OptionPlaceName(OptionPlace place);
// {"cli", "session", ...} for the places in the mask, in that order.
std::vector<std::string> OptionPlaceNames(OptionPlaces places);

// A custom check on a value already parsed to the option's type: "" when acceptable, else the reason, worded to
// follow "option NAME: 'TEXT' " (e.g. "has an item without ':on' or ':off'").
using OptionChecker = std::function<std::string(const OptionValue&)>;

struct OptionDef {
  std::string name;
  OptionType type = OptionType::kString;
  OptLevel min_level = OptLevel::kO0;  // active at this level and every higher one
  std::vector<std::string> allowed;    // kEnum: the allowed values, in the order they are listed
  std::optional<double> min, max;      // kInt and kFloat: inclusive range
  OptionChecker checker;               // optional, runs after the type and range checks
  std::string allowed_help;            // describes what `checker` accepts, for listings and errors
  OptionPlaces places = kAllOptionPlaces;
  std::string help;
  std::string owner = "host";  // "host" or the registering plugin's name

  // Defaults as text: `base_default` applies from min_level up unless a level has its own.
  std::string base_default;
  std::array<std::optional<std::string>, kNumOptLevels> level_default_text;
  // Filled by OptionRegistry::Add from the texts above; unset below min_level.
  std::array<std::optional<OptionValue>, kNumOptLevels> defaults;

  static OptionDef Bool(std::string name);
  static OptionDef Int(std::string name);
  static OptionDef Float(std::string name);
  static OptionDef String(std::string name);
  static OptionDef Enum(std::string name, std::vector<std::string> allowed);
  static OptionDef List(std::string name);

  OptionDef& ActiveFrom(OptLevel level);
  OptionDef& Default(std::string text);
  OptionDef& DefaultAt(OptLevel level, std::string text);
  OptionDef& Range(std::optional<double> lo, std::optional<double> hi);
  OptionDef& Check(OptionChecker check, std::string describes);
  OptionDef& Places(OptionPlaces mask);
  OptionDef& Help(std::string text);
  OptionDef& Owner(std::string plugin);

  bool IsActiveAt(OptLevel level) const { return static_cast<int>(level) >= static_cast<int>(min_level); }
  // The default in effect at `level` (the nearest level at or below it that has one); nullopt below min_level.
  std::optional<OptionValue> DefaultAt(OptLevel level) const;
  // What the option accepts, for messages and listings: "true, false", "Balanced, MemoryPriority",
  // "integer in [1, 8]", or the checker's description.
  std::string AllowedText() const;
  // Parses and checks `text`: "" on success with `out` set, else the full message
  // "option NAME: 'TEXT' is not one of: true, false".
  std::string ParseValue(std::string_view text, OptionValue& out) const;
};

}  // namespace kiln
