// libkiln_layout: target formats (TargetFormatPass and its option). Each part registers itself.
#include <kiln/kiln_plugin_parts.hpp>

KILN_PLUGIN("layout", "0.1.0", "Target data formats chosen by cost, conversions as model-local functions") {
  kiln::sdk::RegisterParts(reg);
}
