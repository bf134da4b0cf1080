// The host's core options (GE's ge.oo.* family) and the names code refers them by. Later issues add theirs next
// to the code that reads them; plugins register their own through the ABI.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "options/option_registry.h"

namespace kiln {

inline constexpr std::string_view kOptLevelOption = "oo.level";
inline constexpr std::string_view kConstantFoldingOption = "oo.constantFolding";
inline constexpr std::string_view kDeadCodeEliminationOption = "oo.deadCodeElimination";
inline constexpr std::string_view kCommonSubexpressionEliminationOption = "oo.commonSubexpressionElimination";
inline constexpr std::string_view kMemoryPolicyOption = "oo.memoryPolicy";
inline constexpr std::string_view kOptimizationSwitchOption = "oo.optimizationSwitch";
inline constexpr std::string_view kDisableOptimizationsOption = "oo.disableOptimizations";

// Registers the options above into `registry`.
void RegisterCoreOptions(OptionRegistry& registry);

// One item of oo.optimizationSwitch: "ConstantFoldingPass:off".
struct PassSwitch {
  std::string pass;
  bool on = false;
};

// Parses one "PassName:on" / "PassName:off" item (spaces around either part allowed; on/off in any case).
std::optional<PassSwitch> ParsePassSwitch(std::string_view item);

}  // namespace kiln
