// Option definitions: the fluent builders, per-level defaults, and value checking; see option_def.h.
#include "options/option_def.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "options/nearest_name.h"

namespace kiln {
namespace {

OptionDef Make(std::string name, OptionType type) {
  OptionDef def;
  def.name = std::move(name);
  def.type = type;
  return def;
}

std::string FormatBound(double v) {
  std::ostringstream stream;
  stream.imbue(std::locale::classic());
  stream << v;
  return stream.str();
}

}  // namespace

std::string_view OptionPlaceName(OptionPlace place) {
  switch (place) {
    case OptionPlace::kCli: return "cli";
    case OptionPlace::kSession: return "session";
    case OptionPlace::kGraph: return "graph";
    case OptionPlace::kPipeline: return "pipeline";
  }
  return "?";
}

std::vector<std::string> OptionPlaceNames(OptionPlaces places) {
  std::vector<std::string> names;
  for (OptionPlace place : {OptionPlace::kCli, OptionPlace::kSession, OptionPlace::kGraph, OptionPlace::kPipeline}) {
    if (AllowsPlace(places, place)) names.emplace_back(OptionPlaceName(place));
  }
  return names;
}

OptionDef OptionDef::Bool(std::string name) { return Make(std::move(name), OptionType::kBool); }
OptionDef OptionDef::Int(std::string name) { return Make(std::move(name), OptionType::kInt); }
OptionDef OptionDef::Float(std::string name) { return Make(std::move(name), OptionType::kFloat); }
OptionDef OptionDef::String(std::string name) { return Make(std::move(name), OptionType::kString); }
OptionDef OptionDef::List(std::string name) { return Make(std::move(name), OptionType::kList); }
OptionDef OptionDef::Enum(std::string name, std::vector<std::string> allowed) {
  OptionDef def = Make(std::move(name), OptionType::kEnum);
  def.allowed = std::move(allowed);
  return def;
}

OptionDef& OptionDef::ActiveFrom(OptLevel level) {
  min_level = level;
  return *this;
}
OptionDef& OptionDef::Default(std::string text) {
  base_default = std::move(text);
  return *this;
}
OptionDef& OptionDef::DefaultAt(OptLevel level, std::string text) {
  level_default_text[static_cast<int>(level)] = std::move(text);
  return *this;
}
OptionDef& OptionDef::Range(std::optional<double> lo, std::optional<double> hi) {
  min = lo;
  max = hi;
  return *this;
}
OptionDef& OptionDef::Check(OptionChecker check, std::string describes) {
  checker = std::move(check);
  allowed_help = std::move(describes);
  return *this;
}
OptionDef& OptionDef::Places(OptionPlaces mask) {
  places = mask;
  return *this;
}
OptionDef& OptionDef::Help(std::string text) {
  help = std::move(text);
  return *this;
}
OptionDef& OptionDef::Owner(std::string plugin) {
  owner = std::move(plugin);
  return *this;
}

std::optional<OptionValue> OptionDef::DefaultAt(OptLevel level) const {
  for (int l = static_cast<int>(level); l >= static_cast<int>(min_level); --l) {
    if (defaults[l]) return defaults[l];
  }
  return std::nullopt;
}

std::string OptionDef::AllowedText() const {
  if (!allowed_help.empty()) return allowed_help;
  switch (type) {
    case OptionType::kBool: return "true, false";
    case OptionType::kEnum: return JoinNames(allowed);
    case OptionType::kInt:
    case OptionType::kFloat: {
      std::string kind = type == OptionType::kInt ? "integer" : "number";
      if (!min && !max) return kind;
      return kind + " in [" + (min ? FormatBound(*min) : "-inf") + ", " + (max ? FormatBound(*max) : "inf") + "]";
    }
    case OptionType::kList: return "names separated by ',' or ';'";
    case OptionType::kString: return "any string";
  }
  return "";
}

std::string OptionDef::ParseValue(std::string_view text, OptionValue& out) const {
  const std::string prefix = "option " + name + ": '" + std::string(text) + "' ";
  OptionValue value;
  std::string problem = ParseOptionText(type, text, value);
  if (!problem.empty()) {
    if (type == OptionType::kInt || type == OptionType::kFloat) problem += " (expected " + AllowedText() + ")";
    return prefix + problem;
  }
  if (type == OptionType::kEnum) {
    const std::string& chosen = std::get<std::string>(value);
    if (std::find(allowed.begin(), allowed.end(), chosen) == allowed.end()) {
      return prefix + "is not one of: " + JoinNames(allowed);
    }
  }
  if (type == OptionType::kInt || type == OptionType::kFloat) {
    double number =
        type == OptionType::kInt ? static_cast<double>(std::get<std::int64_t>(value)) : std::get<double>(value);
    if ((min && number < *min) || (max && number > *max))
      return prefix + "is out of range (expected " + AllowedText() + ")";
  }
  if (checker) {
    problem = checker(value);
    if (!problem.empty()) return prefix + problem + " (expected " + AllowedText() + ")";
  }
  out = std::move(value);
  return "";
}

}  // namespace kiln
