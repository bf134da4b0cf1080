// swiglu_rules: a plugin that ships a fusion rule pack and nothing else, built out of tree against the installed
// SDK. The pack is swiglu.yaml beside this file (CMake puts its text in swiglu_pack.h); the fusion plugin reads
// every pack a plugin registers, exactly as if it had been given with --fusion-pack.
#include <kiln/kiln_plugin.hpp>

#include "swiglu_pack.h"

KILN_PLUGIN("swiglu_rules", "1.0.0", "a SwiGLU fusion rule pack (example)") {
  reg.AddFusionRules("user_swiglu", kSwigluPackYaml, "swiglu.yaml");
}
