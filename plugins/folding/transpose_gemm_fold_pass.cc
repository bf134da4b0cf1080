// TransposeGemmFoldPass: see transpose_gemm_fold_pass.h.
#include "transpose_gemm_fold_pass.h"

#include <kiln/kiln_plugin_parts.hpp>

#include <array>
#include <string>

namespace kiln::folding {
namespace {

// The Transpose of a matrix producing v, when `reader` alone reads v, v is no graph output and the matrix is not a
// constant (constant folding transposes those itself).
sdk::Node FoldableTranspose(const sdk::Value& v, const sdk::Node& reader) {
  if (!v || v.IsGraphOutput()) return {};
  sdk::Node t = v.Producer();
  if (!t || !t.Is("Transpose") || t.InputCount() < 1 || !t.Input(0) || t.Input(0).IsConstant()) return {};
  if (t.Input(0).Rank() != 2) return {};
  if (t.HasAttr("perm") && t.GetInts("perm") != std::vector<int64_t>{1, 0}) return {};
  for (const sdk::Use& u : v.Consumers())
    if (!(u.node == reader)) return {};
  return t;
}

bool GemmType(int32_t t) {
  switch (t) {
    case KILN_ELEM_FLOAT16: case KILN_ELEM_BFLOAT16: case KILN_ELEM_FLOAT: case KILN_ELEM_DOUBLE:
    case KILN_ELEM_INT32: case KILN_ELEM_INT64: case KILN_ELEM_UINT32: case KILN_ELEM_UINT64:
      return true;
    default:
      return false;
  }
}

void DeleteIfUnread(const sdk::Node& t) {
  if (!t.IsDeleted() && t.Output(0).ConsumerCount() == 0 && !t.Output(0).IsGraphOutput()) t.Delete();
}

}  // namespace

void TransposeGemmFoldPass::Run(sdk::PassContext& ctx, sdk::Node node) {
  if (!node.Domain().empty() || node.InputCount() < 2 || node.OutputCount() < 1) return;
  constexpr std::array<const char*, 2> kFlags = {"transA", "transB"};
  if (node.Is("Gemm")) {
    for (size_t i = 0; i < 2; ++i) {
      sdk::Node t = FoldableTranspose(node.Input(i), node);
      if (!t) continue;
      node.SetInput(i, t.Input(0));
      node.SetInt(kFlags[i], node.GetInt(kFlags[i], 0) ? 0 : 1);
      DeleteIfUnread(t);
      ctx.AddCounter("transposes_folded");
    }
    return;
  }
  if (!node.Is("MatMul")) return;
  sdk::Value a = node.Input(0), b = node.Input(1), y = node.Output(0);
  if (!a || !b || !y || y.IsGraphOutput() || a.Rank() != 2 || b.Rank() != 2 || !GemmType(a.ElemType())) return;
  sdk::Graph g = node.OwnerGraph();
  if (g.OpsetVersion("") < 11) return;
  std::array<sdk::Node, 2> t = {FoldableTranspose(a, node), FoldableTranspose(b, node)};
  if (!t[0] && !t[1]) return;
  sdk::Node gemm = g.CreateNode("Gemm", {t[0] ? t[0].Input(0) : a, t[1] ? t[1].Input(0) : b}, 1);
  for (size_t i = 0; i < 2; ++i)
    if (t[i]) gemm.SetInt(kFlags[i], 1);
  gemm.InferShapes();
  const std::string name(y.Name());
  y.ReplaceAllUsesWith(gemm.Output(0));
  node.Delete();
  if (!g.FindValue(name)) gemm.Output(0).SetName(name);  // the graph reads as before
  for (const sdk::Node& x : t)
    if (x) {
      DeleteIfUnread(x);
      ctx.AddCounter("transposes_folded");
    }
}

}  // namespace kiln::folding

KILN_PLUGIN_PART(TransposeGemmFoldPass) { reg.AddNodePass<kiln::folding::TransposeGemmFoldPass>(); }
