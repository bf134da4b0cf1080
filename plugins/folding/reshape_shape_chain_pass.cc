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

// The target from the Concat's pieces: constants, and Gather(Shape(x), k) at position k as 0.
std::optional<std::vector<int64_t>> TargetFromPieces(const sdk::Value& x, const sdk::Value& shape) {
  sdk::Node concat = shape.Producer();
  if (!concat || !concat.Is("Concat") || concat.GetInt("axis", 0) != 0) return std::nullopt;
  std::vector<int64_t> target;
  bool copied = false;
  for (const sdk::Value& piece : concat.Inputs()) {
    if (!piece) return std::nullopt;
    if (std::optional<std::vector<int64_t>> c = ConstInts(piece)) {
      if (piece.ConstantData().Rank() != 1) return std::nullopt;
      target.insert(target.end(), c->begin(), c->end());
      continue;
    }
    std::optional<int64_t> k = ShapeElementOf(piece, x);
    if (!k || *k != static_cast<int64_t>(target.size())) return std::nullopt;
    target.push_back(0);
    copied = true;
  }
  return copied ? std::optional<std::vector<int64_t>>(std::move(target)) : std::nullopt;
}

// The target from what shape inference computed of it (ABI 1.4): a known element stays; an element equal to x's
// dimension at the same position becomes 0; one element left unknown becomes -1 when every other element is a
// known positive number (so the product of the others cannot be 0 and -1 stands for exactly that element).
std::optional<std::vector<int64_t>> TargetFromInference(const sdk::Value& x, const sdk::Value& shape) {
  std::optional<sdk::Value::ShapeData> data = shape.InferredData();
  std::optional<sdk::TensorShape> xs = x.Shape();
  if (!data || data->scalar || data->FullyKnown() || !xs) return std::nullopt;
  std::vector<int64_t> target;
  std::optional<size_t> unknown;
  bool all_positive = true;
  for (size_t i = 0; i < data->elements.size(); ++i) {
    const auto& e = data->elements[i];
    if (e.value) {
      if (*e.value < -1 || *e.value == -1) return std::nullopt;  // a -1 of its own: leave the target alone
      all_positive &= *e.value > 0;
      target.push_back(*e.value);
    } else if (!e.symbol.empty() && i < xs->size() && !(*xs)[i].IsKnown() && (*xs)[i].symbol == e.symbol) {
      target.push_back(0);
      all_positive = false;
    } else {
      if (unknown) return std::nullopt;
      unknown = i;
      target.push_back(-1);
    }
  }
  if (unknown && !all_positive) return std::nullopt;
  return target;
}

}  // namespace

void ReshapeShapeChainPass::Run(sdk::PassContext& ctx, sdk::Node node) {
  if (!node.Is("Reshape") || node.InputCount() < 2 || !node.Input(0) || !node.Input(1)) return;
  if (node.GetInt("allowzero", 0) != 0 || node.Input(1).IsConstant()) return;
  sdk::Value x = node.Input(0);
  std::optional<std::vector<int64_t>> target = TargetFromPieces(x, node.Input(1));
  if (!target) target = TargetFromInference(x, node.Input(1));
  if (!target) return;
  int64_t dims[] = {static_cast<int64_t>(target->size())};
  node.SetInput(1, node.OwnerGraph().CreateConstant<int64_t>(dims, *target));
  ctx.AddCounter("reshape_targets_made_constant");
}

}  // namespace kiln::folding

KILN_PLUGIN_PART(ReshapeShapeChainPass) { reg.AddNodePass<kiln::folding::ReshapeShapeChainPass>(); }
