// libkiln_folding: GE's constant-folding family (ConstantFoldingPass, DimensionComputePass,
// ReplaceWithEmptyConstPass, DimensionAdjustPass, PotentialConstTakenEffectPass) and the standard clean-ups
// (dead code, common subexpressions, identities, consecutive-op merges). Each pass registers itself.
#include <kiln/kiln_plugin_parts.hpp>

KILN_PLUGIN("folding", "0.1.0", "Constant folding (GE's family) and the standard clean-up passes") {
  kiln::sdk::RegisterParts(reg);
}
