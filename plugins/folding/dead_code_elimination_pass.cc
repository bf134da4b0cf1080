// DeadCodeEliminationPass: see dead_code_elimination_pass.h.
//
// Liveness is one backward sweep over the topological order (consumers before producers), repeated until nothing
// changes (a second sweep is only ever needed if the host's order did not place a subgraph holder after the
// producers of the outer values it reads). Then the dead nodes are deleted in reverse topological order.
#include "dead_code_elimination_pass.h"

#include <kiln/kiln_node_table.hpp>
#include <kiln/kiln_plugin_parts.hpp>

#include <string>
#include <vector>

namespace kiln::folding {
namespace {

bool IsLive(const sdk::Node& n, const sdk::NodeTable<uint8_t>& live) {
  for (const sdk::Value& out : n.Outputs()) {
    if (!out) continue;
    if (out.IsGraphOutput()) return true;
    for (const sdk::Use& use : out.Consumers())
      if (live.Get(use.node)) return true;
  }
  return false;
}

}  // namespace

void DeadCodeEliminationPass::Run(sdk::PassContext& ctx, sdk::Graph graph) {
  std::vector<sdk::Node> nodes = graph.Nodes();
  // Only the graph's own nodes are set: a reader elsewhere (inside a subgraph) reads as dead here, as it did when
  // this was a hash set of the graph's live nodes.
  sdk::NodeTable<uint8_t> live(nodes);
  for (bool grew = true; grew;) {
    grew = false;
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it)
      if (!live.Get(*it) && IsLive(*it, live)) live.Set(*it, 1), grew = true;
  }
  int64_t removed = 0;
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    if (live.Get(*it)) continue;
    it->Delete();
    ++removed;
  }
  if (removed) ctx.AddCounter("nodes_removed", removed);

  int64_t initializers = 0;
  for (const sdk::Value& v : graph.Initializers()) {
    if (v.ConsumerCount() != 0 || v.IsGraphInput() || v.IsGraphOutput()) continue;
    v.Remove();
    ++initializers;
  }
  if (initializers) ctx.AddCounter("initializers_removed", initializers);

  // Unused functions, from the main graph's run (the driver runs this pass on subgraphs first).
  if (graph.ParentNode() || graph.AsFunctionBody()) return;
  int64_t functions = 0;
  for (bool again = true; again;) {
    again = false;
    for (const sdk::Function& f : graph.OwnerModel().Functions()) {
      if (f.CallCount() != 0) continue;
      f.Remove();
      ++functions;
      again = true;
    }
  }
  if (functions) ctx.AddCounter("functions_removed", functions);
}

}  // namespace kiln::folding

KILN_PLUGIN_PART(DeadCodeEliminationPass) {
  using kiln::folding::DeadCodeEliminationPass;
  reg.AddOption(kiln::sdk::OptionSpec::Bool(std::string(DeadCodeEliminationPass::kSwitchOption), true,
                                            "Remove nodes whose outputs reach no graph output.")
                    .MinLevel(1));
  reg.AddGraphPass<DeadCodeEliminationPass>();
}
