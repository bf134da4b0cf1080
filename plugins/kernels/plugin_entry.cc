// libkiln_kernels: the broad CPU kernel library (the analogue of GE's libconstant_folding_ops.so), level one
// of the host's two-level kernel dispatch. Every family under this folder registers itself (KILN_PLUGIN_PART).
#include <kiln/kiln_plugin_parts.hpp>

KILN_PLUGIN("kernels", "0.1.0", "The broad CPU kernel library: ONNX operators across their element types") {
  kiln::sdk::RegisterParts(reg);
}
