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
  registry.Add(OptionDef::String(std::string(kTargetOption))
                   .Default("")
                   .Help("The hardware target passes ask for engines and costs, by the name a plugin registered it "
                         "under (`kiln targets` lists them); empty: none. `kiln compile --target NAME`, pipeline key "
                         "`target:`. An unknown name stops the compile, listing the known ones."));
}

namespace {

constexpr OptionAlias kAliases[] = {
    {kOptLevelOption, "-O", "", "LEVEL", false, false,
     "The optimisation level, 0..3 or O0..O3 (oo.level): `-O3` is --oo.level=O3", "O"},
    {kTargetOption, "--target", "target", "NAME", false, false,
     "The hardware target to compile for (oo.target): passes ask it for engines and costs; `kiln targets` lists "
     "them"},
    {"fusion.packs", "--fusion-pack", "fusion_packs", "FILE", true, true,
     "A fusion rule pack (YAML) to load besides the shipped ones (appended to fusion.packs; repeatable)"},
    {"fusion.report", "--fusion-report", "", "FILE", false, true,
     "Write every fusion candidate and its decision to this text file (fusion.report)"},
    {"memory.plan", "--memory-plan", "", "FILE", false, true,
     "Write the memory plan (offsets, sizes and live ranges of the intermediates, arena, lower bound) to this JSON "
     "file (memory.plan; MemoryPlanningPass, O2 and O3)"},
};

}  // namespace

std::span<const OptionAlias> OptionAliases() { return kAliases; }

const OptionAlias* FindPipelineAlias(std::string_view key) {
  for (const OptionAlias& a : kAliases)
    if (!a.pipeline_key.empty() && a.pipeline_key == key) return &a;
  return nullptr;
}

std::string AliasPath(std::string_view value, const std::filesystem::path& base) {
  std::filesystem::path p{std::string(value)};
  if (p.is_relative()) p = base / p;
  return p.lexically_normal().string();
}

std::string ApplyAliasValues(const OptionAlias& alias, std::string_view existing,
                             const std::vector<std::string>& values) {
  if (!alias.appends) return values.empty() ? std::string(existing) : values.back();
  std::string text(TrimSpaces(existing));
  for (const std::string& v : values) text += (text.empty() ? "" : ";") + v;
  return text;
}

}  // namespace kiln
