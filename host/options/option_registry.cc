// The option registry; see option_registry.h.
#include "options/option_registry.h"

#include "options/nearest_name.h"
#include "support/error.h"

namespace kiln {
namespace {

Error DefinitionError(const OptionDef& def, const std::string& problem) {
  std::string message = "option " + def.name + " registered by " + def.owner + ": " + problem;
  return def.owner == "host" ? InternalError(message) : PluginError(message);
}

}  // namespace

void OptionRegistry::Add(OptionDef def) {
  if (def.name.empty()) throw DefinitionError(def, "the name is empty");
  if (auto it = options_.find(def.name); it != options_.end()) {
    throw DefinitionError(def, "the name is already registered by " + it->second.owner);
  }
  if (def.type == OptionType::kEnum && def.allowed.empty()) throw DefinitionError(def, "an enum with no values");
  if (def.places == 0) throw DefinitionError(def, "it may be set nowhere");
  const int lowest = static_cast<int>(def.min_level);
  if (!def.level_default_text[lowest]) def.level_default_text[lowest] = def.base_default;
  for (int level = 0; level < kNumOptLevels; ++level) {
    def.defaults[level].reset();
    if (!def.level_default_text[level]) continue;
    if (level < lowest) {
      throw DefinitionError(def, "a default for O" + std::to_string(level) + ", below the level it is active from");
    }
    OptionValue value;
    std::string problem = def.ParseValue(*def.level_default_text[level], value);
    if (!problem.empty()) throw DefinitionError(def, "bad default for O" + std::to_string(level) + ": " + problem);
    def.defaults[level] = std::move(value);
  }
  std::string name = def.name;
  options_.emplace(std::move(name), std::move(def));
}

const OptionDef* OptionRegistry::Find(std::string_view name) const {
  auto it = options_.find(name);
  return it == options_.end() ? nullptr : &it->second;
}

const OptionDef& OptionRegistry::Get(std::string_view name) const {
  const OptionDef* def = Find(name);
  if (!def) throw ConfigError(UnknownOptionMessage(name));
  return *def;
}

OptionValue OptionRegistry::Parse(std::string_view name, std::string_view text) const {
  OptionValue value;
  std::string problem = Get(name).ParseValue(text, value);
  if (!problem.empty()) throw ConfigError(problem);
  return value;
}

std::vector<const OptionDef*> OptionRegistry::All() const {
  std::vector<const OptionDef*> all;
  for (const auto& [name, def] : options_) all.push_back(&def);
  return all;
}

std::vector<std::string> OptionRegistry::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, def] : options_) names.push_back(name);
  return names;
}

std::string OptionRegistry::UnknownOptionMessage(std::string_view name) const {
  return "unknown option '" + std::string(name) + "'" + DidYouMean(name, Names());
}

}  // namespace kiln
