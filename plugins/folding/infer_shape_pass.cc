#include "infer_shape_pass.h"

#include <kiln/kiln_plugin_parts.hpp>

#include <string>

namespace kiln::folding {
namespace {

// GE's GeDeletedOp hint: with folding off, a Shape/Size left in the graph is named, with the option to turn on.
void ReportUnfoldedDimensionOps(sdk::PassContext& ctx, sdk::Graph graph) {
  for (const sdk::Node& n : graph.Nodes()) {
    if (!n.Is("Shape") && !n.Is("Size") && !n.Is("Rank")) continue;
    ctx.AddCounter("dimension_ops_not_folded");
    ctx.Log(KILN_LOG_WARN, "node " + std::string(n.Name()) + " (" + std::string(n.OpType()) +
                               ") was not folded: oo.constantFolding is off");
  }
}

}  // namespace

void InferShapePass::Run(sdk::PassContext& ctx, sdk::Graph graph) {
  if (!ctx.OptionBool("oo.constantFolding")) ReportUnfoldedDimensionOps(ctx, graph);
  // Inference covers the whole model, subgraphs included: run it once, from the top graph.
  if (KILN_HOST_HAS(&sdk::Host(), graph_parent_node) && graph.ParentNode()) return;
  graph.InferShapes();
  ctx.AddCounter("runs");
}

}  // namespace kiln::folding

KILN_PLUGIN_PART(InferShapePass) { reg.AddGraphPass<kiln::folding::InferShapePass>(); }
