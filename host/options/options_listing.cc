// `kiln options` data as JSON and as text; see options_listing.h.
#include "options/options_listing.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "options/nearest_name.h"

namespace kiln {
namespace {

std::vector<OptLevel> ListedLevels(const OptionDef& def, std::optional<OptLevel> level) {
  std::vector<OptLevel> levels;
  for (OptLevel l : kAllOptLevels) {
    if (def.IsActiveAt(l) && (!level || l == *level)) levels.push_back(l);
  }
  return levels;
}

// "O1..O3: true" runs of equal defaults, joined with "; ".
std::string DefaultsText(const OptionDef& def, const std::vector<OptLevel>& levels) {
  std::string out;
  for (size_t i = 0; i < levels.size();) {
    std::string value = FormatOptionValue(*def.DefaultAt(levels[i]));
    size_t j = i;
    while (j + 1 < levels.size() && FormatOptionValue(*def.DefaultAt(levels[j + 1])) == value) ++j;
    if (!out.empty()) out += "; ";
    out += std::string(OptLevelName(levels[i]));
    if (j > i) out += ".." + std::string(OptLevelName(levels[j]));
    out += ": " + (value.empty() ? std::string("(empty)") : value);
    i = j + 1;
  }
  return out;
}

}  // namespace

nlohmann::json OptionsToJson(const OptionRegistry& registry, std::optional<OptLevel> level) {
  nlohmann::json options = nlohmann::json::array();
  for (const OptionDef* def : registry.All()) {
    std::vector<OptLevel> levels = ListedLevels(*def, level);
    if (levels.empty()) continue;
    nlohmann::json entry;
    entry["name"] = def->name;
    entry["type"] = OptionTypeName(def->type);
    entry["levels"] = nlohmann::json::array();
    entry["defaults"] = nlohmann::json::object();
    for (OptLevel l : levels) {
      entry["levels"].push_back(OptLevelName(l));
      entry["defaults"][std::string(OptLevelName(l))] = OptionValueToJson(*def->DefaultAt(l));
    }
    if (def->type == OptionType::kBool && def->allowed_help.empty()) {
      entry["allowed"] = {"true", "false"};
    } else if (def->type == OptionType::kEnum) {
      entry["allowed"] = def->allowed;
    }
    entry["allowed_text"] = def->AllowedText();
    entry["settable"] = OptionPlaceNames(def->places);
    entry["help"] = def->help;
    entry["owner"] = def->owner;
    options.push_back(std::move(entry));
  }
  return {{"level", level ? nlohmann::json(OptLevelName(*level)) : nlohmann::json(nullptr)},
          {"options", std::move(options)}};
}

std::string OptionsToTable(const OptionRegistry& registry, std::optional<OptLevel> level) {
  std::vector<const OptionDef*> defs;
  size_t name_width = 0;
  for (const OptionDef* def : registry.All()) {
    if (ListedLevels(*def, level).empty()) continue;
    defs.push_back(def);
    name_width = std::max(name_width, def->name.size());
  }
  std::string out;
  for (const OptionDef* def : defs) {
    std::vector<OptLevel> levels = ListedLevels(*def, level);
    std::string name = def->name;
    name.resize(name_width, ' ');
    std::string type(OptionTypeName(def->type));
    type.resize(6, ' ');
    out += name + "  " + type + "  " + std::string(OptLevelName(def->min_level)) + "+  default " +
           DefaultsText(*def, levels) + "  [" + JoinNames(OptionPlaceNames(def->places), " ") + "]  (" + def->owner +
           ")\n";
    out += "    allowed: " + def->AllowedText() + "\n";
    if (!def->help.empty()) out += "    " + def->help + "\n";
  }
  if (defs.empty()) out = "no options\n";
  return out;
}

}  // namespace kiln
