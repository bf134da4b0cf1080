// Whether a pass listed in a stage runs, given the resolved options: the one decision the pass driver and
// --print-pipeline share. A listed pass runs unless
//   - oo.disableOptimizations names it (this wins over everything), or
//   - oo.optimizationSwitch has "Pass:off", or
//   - its switch option (PassCatalog::SwitchOptionOf) is false or not active at the level, and
//     oo.optimizationSwitch does not have "Pass:on" (the per-pass switch is more specific than the option).
// The last item of the switch list for a pass wins.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "options/option_resolver.h"
#include "pipeline/pass_catalog.h"

namespace kiln {

struct PassDecision {
  bool run = true;
  std::string reason;  // why it is skipped, or why it runs despite its switch option; "" for a plain run
};

class PassGate {
 public:
  // Reads the switch and disable lists once. Their pass names must be registered: an unknown name is a
  // ConfigError "option oo.disableOptimizations (session): unknown pass 'X'; did you mean 'Y'?".
  PassGate(const ResolvedOptions& options, const PassCatalog& catalog);

  PassDecision Decide(std::string_view pass) const;

 private:
  const ResolvedOptions& options_;
  const PassCatalog& catalog_;
  std::map<std::string, bool, std::less<>> switches_;  // pass -> on
  std::map<std::string, bool, std::less<>> disabled_;  // a set; map for heterogeneous lookup
  std::string switch_source_, disable_source_;         // "(session)" etc., for reasons
};

// One-off form of PassGate(options, catalog).Decide(pass).
PassDecision DecidePass(std::string_view pass, const ResolvedOptions& options, const PassCatalog& catalog);

}  // namespace kiln
