// ReshapeChainMergePass: see reshape_chain_merge_pass.h.
#include "reshape_chain_merge_pass.h"

#include <kiln/kiln_plugin_parts.hpp>

#include "constant_ints.h"

#include <optional>
#include <vector>

namespace kiln::folding {
namespace {

bool IsShapeReshape(const sdk::Node& n) { return n && n.Is("Reshape") && n.InputCount() >= 2 && n.Input(0) && n.Input(1); }

}  // namespace

void ReshapeChainMergePass::Run(sdk::PassContext& ctx, sdk::Node node) {
  if (!IsShapeReshape(node)) return;
  sdk::Node inner = node.Input(0).Producer();
  if (!IsShapeReshape(inner)) return;
  std::optional<std::vector<int64_t>> target = ConstInts(node.Input(1));
  if (!target) return;
  // Reshape(x, s1) -> Reshape(x, s2): a 0 in s2 copies the intermediate's dimension; spell it out or give up.
  bool rewritten = false;
  if (node.GetInt("allowzero", 0) == 0) {
    std::span<const int64_t> mid = node.Input(0).Dims();
    for (size_t i = 0; i < target->size(); ++i) {
      if ((*target)[i] != 0) continue;
      if (i >= mid.size() || mid[i] < 0) return;
      (*target)[i] = mid[i];
      rewritten = true;
    }
  }
  sdk::Value x = inner.Input(0);
  if (rewritten) {
    int64_t dims[] = {static_cast<int64_t>(target->size())};
    node.SetInput(1, node.OwnerGraph().CreateConstant<int64_t>(dims, *target));
  }
  sdk::Value mid = node.Input(0);
  node.SetInput(0, x);
  if (mid.ConsumerCount() == 0 && !mid.IsGraphOutput()) inner.Delete();
  ctx.AddCounter("reshapes_merged");
}

}  // namespace kiln::folding

KILN_PLUGIN_PART(ReshapeChainMergePass) { reg.AddNodePass<kiln::folding::ReshapeChainMergePass>(); }
