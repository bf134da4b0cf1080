#include "potential_const_taken_effect_pass.h"

#include <kiln/kiln_plugin_parts.hpp>

#include <vector>

#include "folding_marks.h"

namespace kiln::folding {

void PotentialConstTakenEffectPass::OnFinishGraph(sdk::PassContext& ctx, sdk::Graph graph) {
  for (const sdk::Node& node : graph.Nodes()) {
    if (node.IsDeleted()) continue;
    sdk::TensorView weight = PotentialWeight(node);
    if (!weight) continue;
    std::vector<sdk::Node> consumers;
    for (size_t i = 0; i < node.OutputCount(); ++i)
      if (sdk::Value out = node.Output(i))
        for (const sdk::Use& u : out.Consumers()) consumers.push_back(u.node);
    sdk::Value out = node.Output(0);
    if (node.OutputCount() != 1 || !out) continue;
    if (out.ConsumerCount() == 0 && !out.IsGraphOutput()) {
      node.Delete();
    } else {
      ReplaceOutputsWithConstants(node, [&](size_t) { return weight; });
    }
    ctx.AddCounter("nodes_folded");
    for (const sdk::Node& c : consumers)
      if (!c.IsDeleted()) ctx.RequestRepass(c);
  }
}

}  // namespace kiln::folding

KILN_PLUGIN_PART(PotentialConstTakenEffectPass) { reg.AddNodePass<kiln::folding::PotentialConstTakenEffectPass>(); }
