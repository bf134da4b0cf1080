// Option resolution by precedence; see option_resolver.h.
#include "options/option_resolver.h"

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <utility>

#include "options/core_options.h"
#include "support/error.h"

namespace kiln {
namespace {

struct NamedLayer {
  const OptionLayer* layer;
  OptionSource source;
};

std::array<NamedLayer, 3> OrderedLayers(const OptionLayers& layers) {
  return {{{layers.graph, OptionSource::kGraph},
           {layers.session, OptionSource::kSession},
           {layers.pipeline, OptionSource::kPipeline}}};
}

ResolvedOption ResolveLevelOption(const OptionDef& def, OptLevel level, const OptionLayers& layers) {
  ResolvedOption resolved{&def, std::string(OptLevelName(level)), OptionSource::kDefault, "", ""};
  for (const NamedLayer& named : OrderedLayers(layers)) {
    const OptionSetting* setting = named.layer ? named.layer->Find(def.name) : nullptr;
    if (!setting) continue;
    if (std::get<std::string>(setting->value) == OptLevelName(level)) {
      resolved.source = named.source;
      resolved.origin = setting->origin;
    } else {
      resolved.source = OptionSource::kPipeline;
      resolved.note = "the pipeline's level " + std::string(OptLevelName(level)) + " was used over " + def.name + "=" +
                      std::get<std::string>(setting->value) + " (" + std::string(OptionSourceName(named.source)) + ")";
    }
    return resolved;
  }
  if (def.DefaultAt(level) != OptionValue(std::string(OptLevelName(level)))) resolved.source = OptionSource::kPipeline;
  return resolved;
}

ResolvedOption ResolveOne(const OptionDef& def, OptLevel level, const OptionLayers& layers) {
  if (def.name == kOptLevelOption) return ResolveLevelOption(def, level, layers);
  ResolvedOption resolved{&def, {}, OptionSource::kDefault, "", ""};
  if (!def.IsActiveAt(level)) {
    resolved.source = OptionSource::kInactive;
    resolved.value = def.type == OptionType::kBool ? OptionValue(false) : *def.DefaultAt(def.min_level);
    for (const NamedLayer& named : OrderedLayers(layers)) {
      if (named.layer && named.layer->Find(def.name)) {
        resolved.note = "set in " + std::string(OptionSourceName(named.source)) + " options but not active at " +
                        std::string(OptLevelName(level)) + " (active from " + std::string(OptLevelName(def.min_level)) +
                        ")";
        break;
      }
    }
    return resolved;
  }
  for (const NamedLayer& named : OrderedLayers(layers)) {
    const OptionSetting* setting = named.layer ? named.layer->Find(def.name) : nullptr;
    if (!setting) continue;
    resolved.value = setting->value;
    resolved.source = named.source;
    resolved.origin = setting->origin;
    return resolved;
  }
  resolved.value = *def.DefaultAt(level);
  return resolved;
}

template <typename T>
const T& ValueAs(const ResolvedOption& option, std::string_view wanted) {
  const T* value = std::get_if<T>(&option.value);
  if (!value) {
    throw InternalError("option " + option.def->name + " is a " + std::string(OptionTypeName(option.def->type)) +
                        ", read as " + std::string(wanted));
  }
  return *value;
}

}  // namespace

std::string_view OptionSourceName(OptionSource source) {
  switch (source) {
    case OptionSource::kGraph: return "graph";
    case OptionSource::kSession: return "session";
    case OptionSource::kPipeline: return "pipeline";
    case OptionSource::kDefault: return "default";
    case OptionSource::kInactive: return "inactive";
  }
  return "?";
}

ResolvedOptions::ResolvedOptions(OptLevel level, std::vector<ResolvedOption> options)
    : level_(level), options_(std::move(options)) {
  std::sort(options_.begin(), options_.end(),
            [](const ResolvedOption& a, const ResolvedOption& b) { return a.def->name < b.def->name; });
}

const ResolvedOption* ResolvedOptions::Find(std::string_view name) const {
  auto it = std::lower_bound(options_.begin(), options_.end(), name,
                             [](const ResolvedOption& option, std::string_view n) { return option.def->name < n; });
  return it != options_.end() && it->def->name == name ? &*it : nullptr;
}

const ResolvedOption& ResolvedOptions::Get(std::string_view name) const {
  const ResolvedOption* option = Find(name);
  if (!option) throw InternalError("option " + std::string(name) + " is not registered");
  return *option;
}

bool ResolvedOptions::GetBool(std::string_view name) const { return ValueAs<bool>(Get(name), "bool"); }
std::int64_t ResolvedOptions::GetInt(std::string_view name) const { return ValueAs<std::int64_t>(Get(name), "int"); }
double ResolvedOptions::GetFloat(std::string_view name) const { return ValueAs<double>(Get(name), "float"); }
const std::string& ResolvedOptions::GetString(std::string_view name) const {
  return ValueAs<std::string>(Get(name), "string");
}
const std::vector<std::string>& ResolvedOptions::GetList(std::string_view name) const {
  return ValueAs<std::vector<std::string>>(Get(name), "list");
}

nlohmann::json ResolvedOptions::ToJson() const {
  nlohmann::json list = nlohmann::json::array();
  for (const ResolvedOption& option : options_) {
    nlohmann::json entry = {{"name", option.def->name},
                            {"value", OptionValueToJson(option.value)},
                            {"source", OptionSourceName(option.source)}};
    if (!option.origin.empty()) entry["origin"] = option.origin;
    if (!option.note.empty()) entry["note"] = option.note;
    list.push_back(std::move(entry));
  }
  return {{"level", OptLevelName(level_)}, {"options", std::move(list)}};
}

OptLevel ResolveLevel(const OptionRegistry& registry, const OptionLayers& layers) {
  const OptionDef& def = registry.Get(kOptLevelOption);
  for (const NamedLayer& named : OrderedLayers(layers)) {
    if (named.source == OptionSource::kPipeline) continue;
    const OptionSetting* setting = named.layer ? named.layer->Find(def.name) : nullptr;
    if (setting) return *ParseOptLevel(std::get<std::string>(setting->value));
  }
  return *ParseOptLevel(std::get<std::string>(*def.DefaultAt(OptLevel::kO0)));
}

ResolvedOptions ResolveOptions(const OptionRegistry& registry, OptLevel level, const OptionLayers& layers) {
  std::vector<ResolvedOption> resolved;
  for (const OptionDef* def : registry.All()) resolved.push_back(ResolveOne(*def, level, layers));
  return ResolvedOptions(level, std::move(resolved));
}

}  // namespace kiln
