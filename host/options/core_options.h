// The host's core options (GE's ge.oo.* family) and the names code refers them by: the level, the two lists
// that turn passes on and off by name, and the active hardware target. Options that belong to passes
// (oo.constantFolding, oo.memoryPolicy, fusion.packs, ...) are registered by the plugin that defines those passes,
// through the ABI, next to the passes that read them.
//
// Also the one table of option aliases: the `kiln compile` flags and top-level pipeline keys that stand for an
// option (`--target NAME` and `target:` for oo.target, `--fusion-pack FILE` and `fusion_packs:` for fusion.packs,
// `--fusion-report FILE` for fusion.report, `--memory-plan FILE` for memory.plan). The CLI (host/cli/compile_command.cc) and the pipeline loader
// (host/pipeline/pipeline_loader.cc) both read it, and README.md's compile flags table lists it.
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "options/option_registry.h"

namespace kiln {

inline constexpr std::string_view kOptLevelOption = "oo.level";
inline constexpr std::string_view kOptimizationSwitchOption = "oo.optimizationSwitch";
inline constexpr std::string_view kDisableOptimizationsOption = "oo.disableOptimizations";
inline constexpr std::string_view kTargetOption = "oo.target";

// Registers the options above into `registry`.
void RegisterCoreOptions(OptionRegistry& registry);

// One item of oo.optimizationSwitch: "ConstantFoldingPass:off".
struct PassSwitch {
  std::string pass;
  bool on = false;
};

// Parses one "PassName:on" / "PassName:off" item (spaces around either part allowed; on/off in any case).
std::optional<PassSwitch> ParsePassSwitch(std::string_view item);

// A shorthand for an option. The option itself may be a plugin's: it must be registered when the alias is used.
struct OptionAlias {
  std::string_view option;        // "fusion.packs"
  std::string_view cli_flag;      // "--fusion-pack"; empty: no flag
  std::string_view pipeline_key;  // "fusion_packs"; empty: no pipeline key
  std::string_view value_name;    // "FILE", for help texts
  bool appends = false;  // repeatable: each value is appended to the option's value, ';'-joined (else the last wins)
  bool paths = false;    // values are file paths, made absolute (CLI: from the working directory; pipeline: from
                         // the pipeline file's folder)
  std::string_view help;
  std::string_view value_prefix = {};  // put before a value that lacks it: `-O2` gives oo.level "O2"
};

// Every alias, in the order help texts list them.
std::span<const OptionAlias> OptionAliases();
// The alias of a top-level pipeline key; null when the key is no alias.
const OptionAlias* FindPipelineAlias(std::string_view key);
// A path value made absolute against `base` (lexically normalised); an absolute one only normalised.
std::string AliasPath(std::string_view value, const std::filesystem::path& base);
// The option text once `values` are applied over `existing` (the option's text so far in that place, maybe
// empty): the last value, or for an appending alias `existing` and the values joined with ';'.
std::string ApplyAliasValues(const OptionAlias& alias, std::string_view existing,
                             const std::vector<std::string>& values);

}  // namespace kiln
