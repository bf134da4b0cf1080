// IdentityEliminationPass: see identity_elimination_pass.h. The no-op rules are data: one row per op, each with
// the predicate that decides the node returns its input 0 unchanged.
#include "identity_elimination_pass.h"

#include <kiln/kiln_plugin_parts.hpp>

#include "constant_ints.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln::folding {
namespace {

std::optional<std::vector<int64_t>> InputOrAttrInts(const sdk::Node& n, size_t input, std::string_view attr,
                                                    int64_t since) {
  if (n.OwnerGraph().OpsetVersion("") >= since) return n.InputCount() > input ? ConstInts(n.Input(input)) : std::nullopt;
  if (!n.HasAttr(attr)) return std::nullopt;
  return n.GetInts(attr);
}

// Identity(x) -> x
bool IdentityNoOp(const sdk::Node&) { return true; }

// Dropout(x) -> x when not training and the mask is unused
bool DropoutNoOp(const sdk::Node& n) {
  if (n.OutputCount() > 1 && n.Output(1) && (n.Output(1).ConsumerCount() || n.Output(1).IsGraphOutput())) return false;
  if (n.OwnerGraph().OpsetVersion("") < 7) return n.GetInt("is_test", 0) != 0;
  if (n.InputCount() > 2 && n.Input(2)) {
    sdk::Value training = n.Input(2);
    if (!training.IsConstant() || !training.ConstantData() || training.ConstantData().ElemType() != KILN_ELEM_BOOL)
      return false;
    for (uint8_t b : training.ConstantData().Values<uint8_t>())
      if (b) return false;
  }
  return true;
}

// Cast(x, to = type(x)) -> x
bool CastNoOp(const sdk::Node& n) {
  int32_t from = n.Input(0).ElemType();
  return from != 0 && from == n.GetInt("to", -1);
}

// Reshape(x, s) -> x when s, resolved against x, is x's shape
bool ReshapeNoOp(const sdk::Node& n) {
  if (n.InputCount() < 2) return false;
  std::optional<std::vector<int64_t>> target = ConstInts(n.Input(1));
  std::span<const int64_t> dims = n.Input(0).Dims();
  if (!target || n.Input(0).Rank() < 0 || target->size() != dims.size()) return false;
  bool allowzero = n.GetInt("allowzero", 0) != 0;
  int infer = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t t = (*target)[i];
    if (t == -1) ++infer;
    else if (t == 0 && !allowzero) continue;  // copies x's dimension
    else if (t != dims[i]) return false;      // also refuses an unknown dimension of x
  }
  return infer <= 1;  // the one -1 takes what the others leave: x's own dimension
}

// Transpose(x, perm = identity) -> x
bool TransposeNoOp(const sdk::Node& n) {
  std::vector<int64_t> perm = n.GetInts("perm");
  if (perm.empty()) return n.Input(0).Rank() >= 0 && n.Input(0).Rank() <= 1;
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return true;
}

// Expand(x, s) -> x when broadcasting x to s gives x's shape
bool ExpandNoOp(const sdk::Node& n) {
  if (n.InputCount() < 2) return false;
  std::optional<std::vector<int64_t>> s = ConstInts(n.Input(1));
  std::span<const int64_t> dims = n.Input(0).Dims();
  if (!s || n.Input(0).Rank() < 0 || s->size() > dims.size()) return false;
  size_t offset = dims.size() - s->size();
  for (size_t i = 0; i < s->size(); ++i)
    if ((*s)[i] != 1 && (*s)[i] != dims[offset + i]) return false;
  return true;
}

// Slice(x, ...) -> x when every sliced axis keeps its full range with step 1
bool SliceNoOp(const sdk::Node& n) {
  std::optional<std::vector<int64_t>> starts = InputOrAttrInts(n, 1, "starts", 10);
  std::optional<std::vector<int64_t>> ends = InputOrAttrInts(n, 2, "ends", 10);
  int64_t rank = n.Input(0).Rank();
  if (!starts || !ends || starts->size() != ends->size() || rank < 0) return false;
  std::vector<int64_t> axes, steps(starts->size(), 1);
  for (size_t i = 0; i < starts->size(); ++i) axes.push_back(static_cast<int64_t>(i));
  bool opset10 = n.OwnerGraph().OpsetVersion("") >= 10;
  if (opset10 ? (n.InputCount() > 3 && n.Input(3)) : n.HasAttr("axes")) {
    std::optional<std::vector<int64_t>> a = InputOrAttrInts(n, 3, "axes", 10);
    if (!a || a->size() != starts->size()) return false;
    axes = *a;
  }
  if (opset10 && n.InputCount() > 4 && n.Input(4)) {
    std::optional<std::vector<int64_t>> s = ConstInts(n.Input(4));
    if (!s || s->size() != starts->size()) return false;
    steps = *s;
  }
  std::span<const int64_t> dims = n.Input(0).Dims();
  constexpr int64_t kPastAnySize = (int64_t{1} << 31) - 1;
  for (size_t k = 0; k < starts->size(); ++k) {
    int64_t axis = axes[k] < 0 ? axes[k] + rank : axes[k];
    if (axis < 0 || axis >= rank || steps[k] != 1) return false;
    int64_t d = dims[static_cast<size_t>(axis)], s = (*starts)[k], e = (*ends)[k];
    if (d < 0) {  // size unknown: only 0 and "past any size" are certain
      if (s != 0 || e < kPastAnySize) return false;
      continue;
    }
    if (s < 0) s += d;
    if (e < 0) e += d;
    if (s > 0 || e < d) return false;
  }
  return true;
}

// Pad(x, pads = 0) -> x
bool PadNoOp(const sdk::Node& n) {
  std::optional<std::vector<int64_t>> pads;
  if (n.OwnerGraph().OpsetVersion("") >= 11) pads = n.InputCount() > 1 ? ConstInts(n.Input(1)) : std::nullopt;
  else pads = n.GetInts(n.HasAttr("pads") ? "pads" : "paddings");
  if (!pads || pads->empty()) return false;
  for (int64_t p : *pads)
    if (p != 0) return false;
  return true;
}

struct NoOpRule {
  std::string_view op_type;
  std::string_view counter;
  bool (*applies)(const sdk::Node&);
};

constexpr NoOpRule kRules[] = {
    {"Identity", "identities_removed", IdentityNoOp}, {"Dropout", "dropouts_removed", DropoutNoOp},
    {"Cast", "casts_removed", CastNoOp},               {"Reshape", "reshapes_removed", ReshapeNoOp},
    {"Transpose", "transposes_removed", TransposeNoOp}, {"Expand", "expands_removed", ExpandNoOp},
    {"Slice", "slices_removed", SliceNoOp},            {"Pad", "pads_removed", PadNoOp},
};

}  // namespace

const std::vector<std::string_view> IdentityEliminationPass::kOpTypes = [] {
  std::vector<std::string_view> types;
  for (const NoOpRule& rule : kRules) types.emplace_back(rule.op_type);
  return types;
}();

void IdentityEliminationPass::Run(sdk::PassContext& ctx, sdk::Node node) {
  if (node.InputCount() == 0 || !node.Input(0) || node.OutputCount() == 0 || !node.Output(0)) return;
  if (node.Input(0).Kind() != KILN_TYPE_KIND_TENSOR) return;
  for (const NoOpRule& rule : kRules) {
    if (!node.Is(rule.op_type)) continue;
    for (const sdk::Value& out : node.Outputs())
      if (out && out.IsGraphOutput()) return;  // keep the graph's output names
    if (!rule.applies(node)) return;
    std::vector<int64_t> io_map(node.OutputCount(), -1);
    io_map[0] = 0;
    node.IsolateAndDelete(io_map);
    ctx.AddCounter(rule.counter);
    return;
  }
}

}  // namespace kiln::folding

KILN_PLUGIN_PART(IdentityEliminationPass) {
  reg.AddOption(kiln::sdk::OptionSpec::Bool(std::string(kiln::folding::IdentityEliminationPass::kSwitchOption), true,
                                      "IdentityEliminationPass: remove Identity, inference Dropout and no-op Cast, "
                                      "Reshape, Transpose, Expand, Slice and Pad"));
  reg.AddNodePass<kiln::folding::IdentityEliminationPass>();
}
