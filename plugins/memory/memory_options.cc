// The memory plugin's options, registered with it (MemoryPlanningPass reads them by full name).
#include <kiln/kiln_plugin_parts.hpp>

namespace {

using kiln::sdk::OptionSpec;

}  // namespace

KILN_PLUGIN_PART(MemoryOptions) {
  reg.AddOption(OptionSpec::Bool("oo.memoryPlanning", true,
                                 "Memory planning (MemoryPlanningPass, the Build stage of O2 and O3): liveness, "
                                 "in-place reuse and offsets in one arena, summarised in the report."));
  reg.AddOption(OptionSpec::Bool("memory.reorder", false,
                                 "MemoryPlanningPass may reorder the main graph's nodes (a topological order that "
                                 "lowers the peak of live bytes, kept only when it does).")
                    .LevelDefaults({"", "", "", "true"}));
  reg.AddOption(OptionSpec::String("memory.plan", "",
                                   "Write the memory plan (every intermediate's offset, size and live range, the "
                                   "arena, the lower bound, the planner chosen) to this JSON file: `kiln compile "
                                   "--memory-plan FILE.json`."));
}
