// Registration of the host's core options; see core_options.h.
#include "options/core_options.h"

#include <cctype>

namespace kiln {

std::optional<PassSwitch> ParsePassSwitch(std::string_view item) {
  size_t colon = item.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::string_view pass = TrimSpaces(item.substr(0, colon));
  std::string state(TrimSpaces(item.substr(colon + 1)));
  for (char& c : state) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (pass.empty() || (state != "on" && state != "off")) return std::nullopt;
  return PassSwitch{std::string(pass), state == "on"};
}

void RegisterCoreOptions(OptionRegistry& registry) {
  const OptionPlaces not_in_pipeline = OptionPlace::kCli | OptionPlace::kSession | OptionPlace::kGraph;
  registry.Add(OptionDef::Enum(std::string(kOptLevelOption), {"O0", "O1", "O2", "O3"})
                   .Default("O2")
                   .Places(not_in_pipeline)
                   .Help("Optimisation level: chooses the pipeline (configs/pipelines/Ox.yaml) and which options are "
                         "active. O0 runs no optimisation. A pipeline file states its level with its `level:` key."));
  registry.Add(OptionDef::Bool(std::string(kConstantFoldingOption))
                   .ActiveFrom(OptLevel::kO1)
                   .Default("true")
                   .Help("Constant folding and its family (dimension computation, empty-constant replacement, "
                         "potential constants). With it off, Shape/Size/Rank nodes stay in the graph."));
  registry.Add(OptionDef::Bool(std::string(kDeadCodeEliminationOption))
                   .ActiveFrom(OptLevel::kO1)
                   .Default("true")
                   .Help("Remove nodes whose outputs reach no graph output."));
  registry.Add(OptionDef::Bool(std::string(kCommonSubexpressionEliminationOption))
                   .ActiveFrom(OptLevel::kO1)
                   .Default("true")
                   .Help("Merge identical nodes and identical constants."));
  registry.Add(OptionDef::Enum(std::string(kMemoryPolicyOption), {"Balanced", "MemoryPriority"})
                   .ActiveFrom(OptLevel::kO1)
                   .Default("Balanced")
                   .Help("MemoryPriority: do not fold a node when an input constant has more than 8 elements and "
                         "more than one consumer (the fold would duplicate it)."));
  registry.Add(OptionDef::List(std::string(kOptimizationSwitchOption))
                   .Default("")
                   .Check(
                       [](const OptionValue& value) -> std::string {
                         for (const std::string& item : std::get<std::vector<std::string>>(value)) {
                           if (!ParsePassSwitch(item)) return "has an item '" + item + "' that is not PassName:on|off";
                         }
                         return "";
                       },
                       "PassName:on|off items separated by ';'")
                   .Help("Per-pass switches, \"PassName:on;PassName:off\". :off stops a listed pass; :on runs a "
                         "listed pass even when its switch option is off. Neither adds a pass to a stage."));
  registry.Add(OptionDef::List(std::string(kDisableOptimizationsOption))
                   .Default("")
                   .Help("Pass names, separated by ',' or ';', that never run; wins over every switch."));
}

}  // namespace kiln
