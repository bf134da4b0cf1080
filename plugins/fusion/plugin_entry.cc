// libkiln_fusion: declarative fusion rule packs (PatternFusionPass) and automatic grouping by op kind
// (AutoFusionPass), writing each fused group as a call of a kiln.fused model-local function. Each part registers
// itself.
#include <kiln/kiln_plugin_parts.hpp>

KILN_PLUGIN("fusion", "0.1.0", "Pattern and automatic fusion into model-local functions") {
  kiln::sdk::RegisterParts(reg);
}
