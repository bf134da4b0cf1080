// DeadCodeEliminationPass: see dead_code_elimination_pass.h.
//
// Liveness is one backward sweep over the topological order (consumers before producers), repeated until nothing
// changes (a second sweep is only ever needed if the host's order did not place a subgraph holder after the
// producers of the outer values it reads). Then the dead nodes are deleted in reverse topological order.
#include "dead_code_elimination_pass.h"

#include <kiln/kiln_plugin_parts.hpp>

#include <unordered_set>
#include <vector>

namespace kiln::folding {
namespace {

bool IsLive(const sdk::Node& n, const std::unordered_set<KilnNode*>& live) {
  for (const sdk::Value& out : n.Outputs()) {
    if (!out) continue;
    if (out.IsGraphOutput()) return true;
    for (const sdk::Use& use : out.Consumers())
      if (live.count(use.node.raw())) return true;
  }
  return false;
}

}  // namespace

void DeadCodeEliminationPass::Run(sdk::PassContext& ctx, sdk::Graph graph) {
  std::vector<sdk::Node> nodes = graph.Nodes();
  std::unordered_set<KilnNode*> live;
  for (bool grew = true; grew;) {
    grew = false;
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it)
      if (!live.count(it->raw()) && IsLive(*it, live)) live.insert(it->raw()), grew = true;
  }
  int64_t removed = 0;
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    if (live.count(it->raw())) continue;
    it->Delete();
    ++removed;
  }
  if (removed) ctx.AddCounter("nodes_removed", removed);
}

}  // namespace kiln::folding

KILN_PLUGIN_PART(DeadCodeEliminationPass) { reg.AddGraphPass<kiln::folding::DeadCodeEliminationPass>(); }
