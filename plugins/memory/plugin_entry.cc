// libkiln_memory: memory planning over the final schedule (MemoryPlanningPass and its options). Each part
// registers itself.
#include <kiln/kiln_plugin_parts.hpp>

KILN_PLUGIN("memory", "0.1.0", "Liveness, in-place reuse, arena offsets and a memory-aware order") {
  kiln::sdk::RegisterParts(reg);
}
