#include "replace_with_empty_const_pass.h"

#include <kiln/kiln_plugin_parts.hpp>

#include <algorithm>
#include <vector>

#include "folding_marks.h"

namespace kiln::folding {

std::vector<sdk::OptionSpec> ReplaceWithEmptyConstPass::Options() {
  return {sdk::OptionSpec::Bool("need_fold", true, "replace now (true) or only mark a potential constant (false)")};
}

void ReplaceWithEmptyConstPass::Run(sdk::PassContext& ctx, sdk::Node node) {
  if (node.InputCount() == 0 || node.OutputCount() == 0) return;
  // Every output known to be empty: the test almost every node fails, so it goes first.
  bool any_used = false;
  for (sdk::Value out : node.Outputs()) {
    if (!out || out.IsGraphOutput()) return;
    if (!out.HasStaticShape() || out.ElemType() == KILN_ELEM_UNDEFINED || out.ElemType() == KILN_ELEM_STRING) return;
    auto dims = out.Dims();
    if (std::find(dims.begin(), dims.end(), 0) == dims.end()) return;
    any_used |= out.ConsumerCount() > 0;
  }
  if (!any_used) return;
  if (node.Is("Constant") || node.Is("If") || node.Is("Loop") || node.Is("Scan") || node.SubgraphCount() > 0) return;
  if (HasMark(node, kIsFromConstantFolding) || HasMark(node, kPotentialConst)) return;
  bool need_fold = ctx.OptionBool("need_fold");
  if (!need_fold) {
    if (node.OutputCount() != 1) return;  // a potential constant holds output 0 only
    KilnTensorView raw{sizeof(KilnTensorView), node.Output(0).ElemType(), 0, nullptr, nullptr, 0};
    auto shape = node.Output(0).Dims();  // one host call: the span is valid for this callback
    std::vector<int64_t> dims(shape.begin(), shape.end());
    raw.rank = static_cast<uint32_t>(dims.size());
    raw.dims = dims.data();
    MarkPotentialConst(node, sdk::TensorView(&raw), kName);
    ctx.AddCounter("nodes_marked");
    return;
  }
  sdk::Graph g = node.OwnerGraph();
  for (sdk::Value out : node.Outputs()) {
    if (out.ConsumerCount() == 0) continue;
    auto shape = out.Dims();
    std::vector<int64_t> dims(shape.begin(), shape.end());
    sdk::NewConstant c = g.AllocateConstant(out.ElemType(), dims, std::string(out.Name()) + "_empty");
    out.ReplaceAllUsesWith(c.value);
  }
  node.Delete();
  ctx.AddCounter("nodes_replaced");
}

}  // namespace kiln::folding

KILN_PLUGIN_PART(ReplaceWithEmptyConstPass) { reg.AddNodePass<kiln::folding::ReplaceWithEmptyConstPass>(); }
