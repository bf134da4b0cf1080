// Option layers; see option_layer.h.
#include "options/option_layer.h"

#include "options/nearest_name.h"
#include "support/error.h"

namespace kiln {

void OptionLayer::Set(const OptionRegistry& registry, std::string_view name, std::string_view text,
                      std::string origin) {
  const OptionDef& def = registry.Get(name);
  if (!AllowsPlace(def.places, place_)) {
    throw ConfigError("option " + def.name + " may not be set in " + std::string(OptionPlaceName(place_)) +
                      " options (it may be set in: " + JoinNames(OptionPlaceNames(def.places)) + ")");
  }
  OptionValue value;
  std::string problem = def.ParseValue(text, value);
  if (!problem.empty()) throw ConfigError(problem);
  settings_[def.name] = OptionSetting{std::move(value), std::move(origin)};
}

void OptionLayer::Merge(const OptionLayer& over) {
  for (const auto& [name, setting] : over.settings_) settings_[name] = setting;
}

const OptionSetting* OptionLayer::Find(std::string_view name) const {
  auto it = settings_.find(name);
  return it == settings_.end() ? nullptr : &it->second;
}

}  // namespace kiln
