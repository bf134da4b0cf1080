// SqueezeUnsqueezePairPass: see squeeze_unsqueeze_pair_pass.h.
#include "squeeze_unsqueeze_pair_pass.h"

#include <kiln/kiln_plugin_parts.hpp>

#include "constant_ints.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace kiln::folding {
namespace {

// The node's axes as written (attribute before opset 13, constant input from 13); nullopt when not known.
std::optional<std::vector<int64_t>> RawAxes(const sdk::Node& n) {
  std::optional<std::vector<int64_t>> axes;
  if (n.OwnerGraph().OpsetVersion("") >= 13) axes = n.InputCount() > 1 && n.Input(1) ? ConstInts(n.Input(1)) : std::nullopt;
  else if (n.HasAttr("axes")) axes = n.GetInts("axes");
  if (!axes || axes->empty()) return std::nullopt;
  return axes;
}

// Sorted, normalised against `rank` (rank < 0: unknown, then a negative axis gives nullopt).
std::optional<std::vector<int64_t>> Normalized(std::vector<int64_t> axes, int64_t rank) {
  for (int64_t& a : axes) {
    if (a < 0 && rank < 0) return std::nullopt;
    if (a < 0) a += rank;
  }
  std::ranges::sort(axes);
  return axes;
}

}  // namespace

void SqueezeUnsqueezePairPass::Run(sdk::PassContext& ctx, sdk::Node node) {
  bool squeeze = node.Is("Squeeze");
  if (!(squeeze || node.Is("Unsqueeze")) || node.InputCount() < 1 || !node.Input(0)) return;
  sdk::Node inner = node.Input(0).Producer();
  if (!inner || !inner.Is(squeeze ? "Unsqueeze" : "Squeeze") || inner.InputCount() < 1 || !inner.Input(0)) return;
  if (node.Output(0).IsGraphOutput()) return;  // keep the graph's output names
  sdk::Value x = inner.Input(0), mid = node.Input(0);
  std::optional<std::vector<int64_t>> outer = RawAxes(node), in = RawAxes(inner);
  if (!outer || !in) return;
  // Both axes lists are defined on the rank of the larger tensor: the Unsqueeze's output, the Squeeze's input.
  int64_t big_rank = squeeze ? mid.Rank() : x.Rank();
  if (squeeze && big_rank < 0 && x.Rank() >= 0) big_rank = x.Rank() + static_cast<int64_t>(in->size());
  std::optional<std::vector<int64_t>> a = Normalized(*outer, big_rank), b = Normalized(*in, big_rank);
  if (!a || !b || *a != *b) return;
  node.Output(0).ReplaceAllUsesWith(x);
  node.Delete();
  if (mid.ConsumerCount() == 0 && !mid.IsGraphOutput()) inner.Delete();
  ctx.AddCounter("pairs_removed");
}

}  // namespace kiln::folding

KILN_PLUGIN_PART(SqueezeUnsqueezePairPass) { reg.AddNodePass<kiln::folding::SqueezeUnsqueezePairPass>(); }
