// TransposePairMergePass: see transpose_pair_merge_pass.h.
#include "transpose_pair_merge_pass.h"

#include <kiln/kiln_plugin_parts.hpp>

#include <numeric>
#include <optional>
#include <vector>

namespace kiln::folding {
namespace {

// The node's permutation; a missing perm is the reversal of `rank` dimensions (rank < 0: unknown).
std::optional<std::vector<int64_t>> Perm(const sdk::Node& n, int64_t rank) {
  std::vector<int64_t> perm = n.GetInts("perm");
  if (!perm.empty()) return perm;
  if (rank < 0) return std::nullopt;
  perm.resize(static_cast<size_t>(rank));
  std::iota(perm.rbegin(), perm.rend(), 0);
  return perm;
}

bool IsIdentity(const std::vector<int64_t>& p) {
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] != static_cast<int64_t>(i)) return false;
  return true;
}

}  // namespace

void TransposePairMergePass::Run(sdk::PassContext& ctx, sdk::Node node) {
  if (!node.Is("Transpose") || node.InputCount() < 1 || !node.Input(0)) return;
  sdk::Node inner = node.Input(0).Producer();
  if (!inner || !inner.Is("Transpose") || inner.InputCount() < 1 || !inner.Input(0)) return;
  int64_t rank = inner.Input(0).Rank();  // unknown: the length of either perm given
  if (rank < 0 && inner.HasAttr("perm")) rank = static_cast<int64_t>(inner.GetInts("perm").size());
  if (rank < 0 && node.HasAttr("perm")) rank = static_cast<int64_t>(node.GetInts("perm").size());
  std::optional<std::vector<int64_t>> p1 = Perm(inner, rank), p2 = Perm(node, rank);
  if (!p1 || !p2 || p1->size() != p2->size()) return;
  std::vector<int64_t> p(p2->size());
  for (size_t j = 0; j < p.size(); ++j) {
    int64_t k = (*p2)[j];
    if (k < 0 || k >= static_cast<int64_t>(p1->size())) return;
    p[j] = (*p1)[static_cast<size_t>(k)];
  }
  sdk::Value x = inner.Input(0), mid = node.Input(0);
  if (IsIdentity(p) && !node.Output(0).IsGraphOutput()) {
    // Transpose(Transpose(x, p1), inverse of p1) -> x
    node.Output(0).ReplaceAllUsesWith(x);
    node.Delete();
    ctx.AddCounter("transpose_pairs_removed");
  } else {
    // Transpose(Transpose(x, p1), p2) -> Transpose(x, p1 o p2)
    node.SetInput(0, x);
    node.SetInts("perm", p);
    ctx.AddCounter("transpose_pairs_merged");
  }
  if (mid.ConsumerCount() == 0 && !mid.IsGraphOutput()) inner.Delete();
}

}  // namespace kiln::folding

KILN_PLUGIN_PART(TransposePairMergePass) { reg.AddNodePass<kiln::folding::TransposePairMergePass>(); }
