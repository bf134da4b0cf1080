// ConstantNodeToInitializerPass: see constant_node_to_initializer_pass.h.
#include "constant_node_to_initializer_pass.h"

#include <kiln/kiln_plugin_parts.hpp>

#include <string>

namespace kiln::folding {

void ConstantNodeToInitializerPass::Run(sdk::PassContext& ctx, sdk::Node node) {
  if (!node.Is("Constant") || node.InputCount() != 0 || node.OutputCount() != 1) return;
  sdk::Value out = node.Output(0);
  if (!out || out.IsGraphOutput() || !out.IsConstant()) return;
  sdk::TensorView data = out.ConstantData();
  if (!data) return;
  sdk::Value replacement = node.OwnerGraph().CopyConstant(data, std::string(out.Name()));
  out.ReplaceAllUsesWith(replacement);
  node.Delete();
  ctx.AddCounter("constants_moved");
}

}  // namespace kiln::folding

KILN_PLUGIN_PART(ConstantNodeToInitializerPass) { reg.AddNodePass<kiln::folding::ConstantNodeToInitializerPass>(); }
