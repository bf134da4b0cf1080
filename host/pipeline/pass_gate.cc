// The run-or-skip decision for a listed pass; see pass_gate.h.
#include "pipeline/pass_gate.h"

#include "options/core_options.h"
#include "options/nearest_name.h"
#include "support/error.h"

namespace kiln {
namespace {

std::string SourceText(const ResolvedOption& option) {
  return " (" + std::string(OptionSourceName(option.source)) + ")";
}

void CheckKnownPass(const PassCatalog& catalog, const ResolvedOption& option, const std::string& pass) {
  if (catalog.HasPass(pass)) return;
  throw ConfigError("option " + option.def->name + SourceText(option) + ": unknown pass '" + pass + "'" +
                    DidYouMean(pass, catalog.PassNames()));
}

}  // namespace

PassGate::PassGate(const ResolvedOptions& options, const PassCatalog& catalog) : options_(options), catalog_(catalog) {
  const ResolvedOption& switch_option = options.Get(kOptimizationSwitchOption);
  switch_source_ = SourceText(switch_option);
  for (const std::string& item : std::get<std::vector<std::string>>(switch_option.value)) {
    std::optional<PassSwitch> parsed = ParsePassSwitch(item);
    if (!parsed) throw InternalError("unchecked switch item '" + item + "'");
    CheckKnownPass(catalog, switch_option, parsed->pass);
    switches_[parsed->pass] = parsed->on;
  }
  const ResolvedOption& disable_option = options.Get(kDisableOptimizationsOption);
  disable_source_ = SourceText(disable_option);
  for (const std::string& pass : std::get<std::vector<std::string>>(disable_option.value)) {
    CheckKnownPass(catalog, disable_option, pass);
    disabled_[pass] = true;
  }
}

PassDecision PassGate::Decide(std::string_view pass) const {
  if (disabled_.count(pass))
    return {false, "disabled by " + std::string(kDisableOptimizationsOption) + disable_source_};
  auto switched = switches_.find(pass);
  if (switched != switches_.end() && !switched->second) {
    return {false, "switched off by " + std::string(kOptimizationSwitchOption) + switch_source_};
  }
  const bool forced_on = switched != switches_.end() && switched->second;
  std::string option_name = catalog_.HasPass(pass) ? catalog_.SwitchOptionOf(pass) : "";
  if (option_name.empty()) return {true, ""};
  const ResolvedOption* option = options_.Find(option_name);
  if (!option)
    throw PluginError("pass " + std::string(pass) + " is switched by option " + option_name +
                      ", which is not registered");
  std::string why_off;
  if (!option->active()) {
    why_off = option_name + " is not active at " + std::string(OptLevelName(options_.level()));
  } else if (option->def->type != OptionType::kBool) {
    throw PluginError("pass " + std::string(pass) + " is switched by option " + option_name + ", which is a " +
                      std::string(OptionTypeName(option->def->type)) + ", not a bool");
  } else if (!std::get<bool>(option->value)) {
    why_off = option_name + "=false" + SourceText(*option);
  }
  if (why_off.empty()) return {true, ""};
  if (forced_on)
    return {true, "switched on by " + std::string(kOptimizationSwitchOption) + switch_source_ + " over " + why_off};
  return {false, why_off};
}

PassDecision DecidePass(std::string_view pass, const ResolvedOptions& options, const PassCatalog& catalog) {
  return PassGate(options, catalog).Decide(pass);
}

}  // namespace kiln
