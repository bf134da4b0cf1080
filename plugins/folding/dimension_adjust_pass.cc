#include "dimension_adjust_pass.h"

#include <kiln/kiln_plugin_parts.hpp>

#include <optional>

#include "folding_marks.h"

namespace kiln::folding {
namespace {

bool SameShape(const std::optional<sdk::TensorShape>& a, const std::optional<sdk::TensorShape>& b) {
  if (!a || !b || a->size() != b->size()) return false;
  for (size_t i = 0; i < a->size(); ++i) {
    const sdk::Dim &x = (*a)[i], &y = (*b)[i];
    if (x.IsKnown() || y.IsKnown()) {
      if (x.value != y.value) return false;
    } else if (x.symbol.empty() || x.symbol != y.symbol) {
      return false;
    }
  }
  return true;
}

}  // namespace

void DimensionAdjustPass::Run(sdk::PassContext& ctx, sdk::Node node) {
  if (!node.Is("Unsqueeze") && !node.Is("Squeeze") && !node.Is("Reshape")) return;
  sdk::Value in = node.Input(0), out = node.Output(0);
  if (!in || !out || in.ElemType() != out.ElemType()) return;
  sdk::Value axes = node.InputCount() > 1 ? node.Input(1) : sdk::Value();
  if (axes && !axes.IsConstant()) return;
  if (!SameShape(in.Shape(), out.Shape())) return;
  if (out.IsGraphOutput()) return;  // a graph output keeps its name
  sdk::Node axes_producer = axes ? axes.Producer() : sdk::Node();
  const int64_t io_map[] = {0};
  node.IsolateAndDelete(io_map);
  ctx.AddCounter("nodes_bypassed");
  if (axes_producer && axes_producer.Is("Constant") && axes.ConsumerCount() == 0 && !axes.IsGraphOutput())
    axes_producer.Delete();
}

}  // namespace kiln::folding

KILN_PLUGIN_PART(DimensionAdjustPass) { reg.AddNodePass<kiln::folding::DimensionAdjustPass>(); }
