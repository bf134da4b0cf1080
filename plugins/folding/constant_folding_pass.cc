#include "constant_folding_pass.h"

#include <kiln/kiln_plugin_parts.hpp>
#include <kiln/kiln_strided_copy.hpp>

#include <algorithm>
#include <limits>
#include <regex>
#include <string>

#include "folding_marks.h"

namespace kiln::folding {
namespace {

constexpr int64_t kGrowthFactor = 2;
constexpr int64_t kGrowthAllowanceBytes = 64 * 1024;
constexpr int64_t kMemoryPriorityMaxElements = 8;
// A folded Transpose of a stored weight this large or larger is made lazily (LazyTranspose).
constexpr uint64_t kLazyTransposeBytes = uint64_t{1} << 20;

bool IsNondeterministic(const sdk::Node& n) {
  std::string_view op = n.OpType();
  if (op.starts_with("Random") || op == "Multinomial" || op == "Bernoulli") return true;
  if (op == "Dropout") {
    if (n.InputCount() < 3 || !n.Input(2)) return false;  // no training_mode input: inference
    sdk::TensorView t = ConstOrPotential(n.Input(2));
    if (!t || t.ElementCount() != 1) return true;
    return static_cast<const uint8_t*>(t.Data())[0] != 0;
  }
  return false;
}

bool NameSkipped(sdk::PassContext& ctx, const sdk::Node& n) {
  std::string pattern = ctx.OptionString("skip_names");
  if (pattern.empty() || n.Name().empty()) return false;
  try {
    return std::regex_search(std::string(n.Name()), std::regex(pattern));
  } catch (const std::regex_error&) {
    throw sdk::Error("ConstantFoldingPass: skip_names is not a valid regex: " + pattern, KILN_STATUS_INVALID_ARGUMENT);
  }
}

// Bytes a static-shaped tensor value takes, saturated at the int64 maximum (past every size limit: a shape can
// claim more elements than int64 counts); -1 when its shape is not static.
int64_t StaticBytes(const sdk::Value& v) {
  if (!v || !v.HasStaticShape()) return -1;
  int64_t n = ElemBytes(v.ElemType());
  for (int64_t d : v.Dims())
    if (__builtin_mul_overflow(n, d, &n)) return std::numeric_limits<int64_t>::max();
  return n;
}

bool AllOutputsKnownEmpty(const sdk::Node& n) {
  if (n.OutputCount() == 0) return false;
  for (sdk::Value out : n.Outputs()) {
    if (!out) continue;
    auto dims = out.Dims();
    if (out.Rank() <= 0 || std::find(dims.begin(), dims.end(), 0) == dims.end()) return false;
  }
  return true;
}

bool UsedOutput(const sdk::Value& v) { return v && (v.ConsumerCount() > 0 || v.IsGraphOutput()); }

// If with a constant condition: replaced by the branch it takes.
bool InlineConstantIf(sdk::PassContext& ctx, const sdk::Node& n) {
  if (!n.Is("If") || !KILN_HOST_HAS(&sdk::Host(), node_inline_subgraph)) return false;
  sdk::TensorView cond = ConstOrPotential(n.Input(0));
  if (!cond || cond.ElementCount() != 1 || cond.ElemType() != KILN_ELEM_BOOL) return false;
  bool taken = static_cast<const uint8_t*>(cond.Data())[0] != 0;
  sdk::Graph branch = n.Attr(taken ? "then_branch" : "else_branch").Subgraph();
  for (size_t i = 0; i < n.SubgraphCount(); ++i) {
    if (n.Subgraph(i) == branch) {
      n.InlineSubgraph(i);
      ctx.AddCounter("if_inlined");
      return true;
    }
  }
  return false;
}

// A Transpose of a stored constant of kLazyTransposeBytes or more folds into a computed constant (ABI 1.10): the
// transposed bytes are made from the weight where the file keeps them when something needs them, and writing the
// model makes them a piece at a time (sdk::StridedCopyRange, blocked as the Transpose kernel's copy is), so the
// compile never holds the new weight whole. The bytes are the kernel's: a transpose only moves elements. Returns
// that constant, the node left as it is, or a null value for anything else (the kernel then folds it, or reports
// why not).
sdk::Value LazyTranspose(const sdk::Node& node, int64_t allowed) {
  if (!node.Is("Transpose") || node.InputCount() != 1 || node.OutputCount() != 1) return {};
  sdk::Value in = node.Input(0), out = node.Output(0);
  if (!in || !in.IsConstant() || !UsedOutput(out)) return {};
  sdk::StoredTensor t = in.ConstantBytes();
  const size_t elem = t ? kiln_elem_type_size(t.ElemType()) : 0;
  if (elem == 0 || t.ElemType() == KILN_ELEM_STRING || t.Bytes().size() < kLazyTransposeBytes ||
      t.Bytes().size() > static_cast<uint64_t>(allowed))
    return {};
  std::optional<sdk::StridedView> view = sdk::TransposeView(t.Dims(), node.GetInts("perm"));
  if (!view) return {};
  sdk::Value sources[] = {in};
  return node.OwnerGraph().ComputedConstant(
      t.ElemType(), view->dims, sources,
      [elem, view = *view](std::span<const sdk::StoredTensor> src, uint64_t offset, std::span<std::byte> dst) {
        sdk::StridedCopyRangeBytes(elem, src[0].Bytes().data(), 0, view.dims, view.strides,
                                   static_cast<int64_t>(offset / elem), static_cast<int64_t>(dst.size() / elem),
                                   dst.data());
      },
      std::string(out.Name()) + "_folded");
}

// Folds `node`: `replace` gives its outputs' readers constants and deletes it. Then the fold is counted, those
// readers are handed back to the walk, and the Constant nodes and potential constants that fed it and feed nothing
// else are deleted.
template <class Replace>
void Fold(sdk::PassContext& ctx, const sdk::Node& node, Replace replace) {
  std::vector<sdk::Node> producers;
  for (sdk::Value in : node.Inputs())
    if (in)
      if (sdk::Node p = in.Producer()) producers.push_back(p);
  std::vector<sdk::Node> consumers;
  for (sdk::Value out : node.Outputs())
    if (out)
      for (const sdk::Use& u : out.Consumers()) consumers.push_back(u.node);
  replace();
  ctx.AddCounter("nodes_folded");
  // A fold reached by a re-pass comes after its consumers' visits: hand them back.
  for (const sdk::Node& c : consumers)
    if (!c.IsDeleted()) ctx.RequestRepass(c);
  // Constant nodes and potential constants feeding it that are now unused go with it.
  for (const sdk::Node& p : producers) {
    if (p.IsDeleted()) continue;
    bool used = false;
    for (sdk::Value out : p.Outputs()) used |= UsedOutput(out);
    if (!used && (p.Is("Constant") || HasMark(p, kPotentialConst))) p.Delete();
  }
}

}  // namespace

std::vector<sdk::OptionSpec> ConstantFoldingPass::Options() {
  return {sdk::OptionSpec::String("skip_names", "", "regex: nodes whose name matches are never folded"),
          sdk::OptionSpec::Int("max_output_bytes", -1,
                               "this placement's limit on a fold's output bytes; -1: oo.constantFolding.maxOutputBytes")};
}

void ConstantFoldingPass::Run(sdk::PassContext& ctx, sdk::Node node) {
  if (node.Is("Constant") || node.InputCount() == 0) return;
  // Most nodes read something computed at run time: that is the cheapest thing to find out, so it goes first
  // (an If with subgraphs is judged by its condition below).
  if (node.SubgraphCount() == 0)
    for (size_t i = 0; i < node.InputCount(); ++i)
      if (sdk::Value in = node.Input(i); in && !IsConstOrPotential(in)) return;
  if (HasMark(node, kDoNotFold) || HasMark(node, kNoNeedFold) || NameSkipped(ctx, node)) {
    ctx.AddCounter("skipped_marked");
    return;
  }
  if (node.SubgraphCount() > 0) {
    InlineConstantIf(ctx, node);
    return;
  }
  if (IsNondeterministic(node) || AllOutputsKnownEmpty(node)) return;
  bool any_used = false;
  for (sdk::Value out : node.Outputs()) any_used |= UsedOutput(out);
  if (!any_used) return;

  // Every present input must be a constant or a potential constant.
  std::vector<sdk::TensorView> inputs(node.InputCount());
  for (size_t i = 0; i < inputs.size(); ++i) {
    sdk::Value in = node.Input(i);
    if (!in) continue;
    inputs[i] = ComputeInputOf(in);
    if (!inputs[i]) return;
  }

  // Memory priority: a shared constant of more than 8 elements would be duplicated by folding.
  bool memory_priority = ctx.OptionString(kMemoryPolicyOption) == "MemoryPriority";
  int64_t freed = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    sdk::Value in = node.Input(i);
    if (!in) continue;
    size_t consumers = in.ConsumerCount();
    if (memory_priority && in.IsConstant() && inputs[i].ElementCount() > kMemoryPriorityMaxElements &&
        consumers > 1) {
      ctx.AddCounter("skipped_memory_priority");
      return;
    }
    if (consumers == 1 && !in.IsGraphOutput()) freed += static_cast<int64_t>(inputs[i].ByteSize());
  }
  int64_t max_bytes = ctx.OptionInt("max_output_bytes");
  if (max_bytes < 0) max_bytes = ctx.OptionInt(kMaxOutputBytesOption);
  const int64_t allowed = std::min(max_bytes, std::max(kGrowthFactor * freed, freed + kGrowthAllowanceBytes));
  // Known output sizes are checked before computing, so a huge Tile is never materialised.
  for (sdk::Value out : node.Outputs())
    if (UsedOutput(out) && StaticBytes(out) > allowed) {
      ctx.AddCounter("skipped_size");
      return;
    }

  if (sdk::Value folded = LazyTranspose(node, allowed))
    return Fold(ctx, node, [&] {
      node.Output(0).ReplaceAllUsesWith(folded);
      node.Delete();
    });

  std::optional<sdk::ComputeResult> result;
  try {
    result.emplace(node.Compute(inputs, KILN_COMPUTE_DETERMINISTIC_ONLY));
  } catch (const sdk::Error& e) {
    ctx.AddCounter("compute_unsupported");
    if (sdk::LogEnabled(KILN_LOG_DEBUG))
      ctx.Log(KILN_LOG_DEBUG, "node " + std::string(node.Name()) + " (" + std::string(node.OpType()) +
                                  ") not folded: " + e.what());
    return;
  }
  int64_t out_bytes = 0;
  for (size_t i = 0; i < node.OutputCount(); ++i) {
    if (!UsedOutput(node.Output(i))) continue;
    sdk::TensorView t = i < result->OutputCount() ? result->Output(i) : sdk::TensorView();
    if (!t) return;  // a sequence or optional output: not a constant
    out_bytes += static_cast<int64_t>(t.ByteSize());
  }
  if (out_bytes > allowed) {
    ctx.AddCounter("skipped_size");
    return;
  }

  Fold(ctx, node, [&] { ReplaceOutputsWithConstants(node, [&](size_t i) { return result->Output(i); }); });
}

}  // namespace kiln::folding

// The family's options: oo.constantFolding switches every folding pass (ConstantFolding, DimensionCompute,
// ReplaceWithEmptyConst, DimensionAdjust, PotentialConstTakenEffect); the rest tune this pass.
KILN_PLUGIN_PART(ConstantFoldingPass) {
  using kiln::folding::ConstantFoldingPass;
  reg.AddOption(kiln::sdk::OptionSpec::Bool(std::string(ConstantFoldingPass::kSwitchOption), true,
                                            "Constant folding and its family (dimension computation, empty-constant "
                                            "replacement, potential constants). With it off, Shape/Size/Rank nodes "
                                            "stay in the graph.")
                    .MinLevel(1));
  reg.AddOption(kiln::sdk::OptionSpec::String(std::string(ConstantFoldingPass::kMemoryPolicyOption), "Balanced",
                                              "MemoryPriority: do not fold a node when an input constant has more "
                                              "than 8 elements and more than one consumer (the fold would "
                                              "duplicate it).",
                                              {"Balanced", "MemoryPriority"})
                    .MinLevel(1));
  reg.AddOption(kiln::sdk::OptionSpec::Int(std::string(kiln::folding::ConstantFoldingPass::kMaxOutputBytesOption),
                                     int64_t{64} << 20,
                                     "ConstantFoldingPass: the largest output (bytes) a fold may create"));
  reg.AddNodePass<kiln::folding::ConstantFoldingPass>();
}
