// ReshapeShapeChainPass: see reshape_shape_chain_pass.h.
#include "reshape_shape_chain_pass.h"

#include <kiln/kiln_plugin_parts.hpp>

#include "constant_ints.h"

#include <optional>
#include <vector>

namespace kiln::folding {
namespace {

// The axes of an Unsqueeze: its input 1 from opset 13, its attribute before.
std::optional<std::vector<int64_t>> UnsqueezeAxes(const sdk::Node& n) {
  if (n.OwnerGraph().OpsetVersion("") >= 13) return n.InputCount() > 1 ? ConstInts(n.Input(1)) : std::nullopt;
  if (!n.HasAttr("axes")) return std::nullopt;
  return n.GetInts("axes");
}

// When `piece` is one element of Shape(x) picked by a constant index, that index made non-negative; else nullopt.
std::optional<int64_t> ShapeElementOf(sdk::Value piece, const sdk::Value& x) {
  sdk::Node p = piece.Producer();
  if (!p) return std::nullopt;
  bool scalar_index = false;
  if (p.Is("Unsqueeze")) {
    std::optional<std::vector<int64_t>> axes = UnsqueezeAxes(p);
    if (!axes || axes->size() != 1 || ((*axes)[0] != 0 && (*axes)[0] != -1) || !p.Input(0)) return std::nullopt;
    p = p.Input(0).Producer();
    scalar_index = true;
    if (!p) return std::nullopt;
  }
  if (!p.Is("Gather") || p.InputCount() < 2 || !p.Input(0) || p.GetInt("axis", 0) != 0) return std::nullopt;
  sdk::Value index = p.Input(1);
  std::optional<std::vector<int64_t>> k = ConstInts(index);
  if (!k || k->size() != 1 || index.ConstantData().Rank() != (scalar_index ? 0u : 1u)) return std::nullopt;
  sdk::Node shape = p.Input(0).Producer();
  if (!shape || !shape.Is("Shape") || shape.InputCount() < 1 || shape.Input(0) != x) return std::nullopt;
  if (shape.HasAttr("start") || shape.HasAttr("end")) return std::nullopt;
  int64_t i = (*k)[0];
  if (i < 0) {
    if (x.Rank() < 0) return std::nullopt;
    i += x.Rank();
  }
  return i < 0 ? std::nullopt : std::optional<int64_t>(i);
}

}  // namespace

void ReshapeShapeChainPass::Run(sdk::PassContext& ctx, sdk::Node node) {
  if (!node.Is("Reshape") || node.InputCount() < 2 || !node.Input(0) || !node.Input(1)) return;
  if (node.GetInt("allowzero", 0) != 0 || node.Input(1).IsConstant()) return;
  sdk::Value x = node.Input(0);
  sdk::Node concat = node.Input(1).Producer();
  if (!concat || !concat.Is("Concat") || concat.GetInt("axis", 0) != 0) return;
  std::vector<int64_t> target;
  bool copied = false;
  for (const sdk::Value& piece : concat.Inputs()) {
    if (!piece) return;
    if (std::optional<std::vector<int64_t>> c = ConstInts(piece)) {
      if (piece.ConstantData().Rank() != 1) return;
      target.insert(target.end(), c->begin(), c->end());
      continue;
    }
    std::optional<int64_t> k = ShapeElementOf(piece, x);
    if (!k || *k != static_cast<int64_t>(target.size())) return;
    target.push_back(0);
    copied = true;
  }
  if (!copied) return;
  int64_t dims[] = {static_cast<int64_t>(target.size())};
  node.SetInput(1, node.OwnerGraph().CreateConstant<int64_t>(dims, target));
  ctx.AddCounter("reshape_targets_made_constant");
}

}  // namespace kiln::folding

KILN_PLUGIN_PART(ReshapeShapeChainPass) { reg.AddNodePass<kiln::folding::ReshapeShapeChainPass>(); }
