// libkiln_kernels: the broad CPU kernel library (the analogue of GE's libconstant_folding_ops.so), level one
// of the host's two-level kernel dispatch. Every family under this folder registers itself (family_registry.h).
#include "core/family_registry.h"

KILN_PLUGIN("kernels", "0.1.0", "The broad CPU kernel library: ONNX operators across their element types") {
  for (const auto& family : kiln::kernels::Families()) family.fn(reg);
}
