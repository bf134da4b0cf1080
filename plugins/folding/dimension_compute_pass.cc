#include "dimension_compute_pass.h"

#include <kiln/kiln_plugin_parts.hpp>

#include <algorithm>
#include <optional>

#include "folding_marks.h"

namespace kiln::folding {
namespace {

// The kin of Shape and Size: an integer node of one output (Gather, Slice, Concat, Cast, arithmetic, ...) whose
// value shape inference computed completely from shapes (value_shape_data, ABI 1.4): Gather(Shape(x), 1) on
// x: [batch, 16] is 16, Mul(Size(x), 0) is 0.
std::optional<OwnedInt64View> ComputedByInference(const sdk::Node& node) {
  if (node.Is("Constant") || !node.Domain().empty() || node.OutputCount() != 1) return std::nullopt;
  sdk::Value out = node.Output(0);
  if (!out || (out.ElemType() != KILN_ELEM_INT64 && out.ElemType() != KILN_ELEM_INT32)) return std::nullopt;
  std::optional<sdk::Value::ShapeData> data = out.InferredData();
  if (!data || !data->FullyKnown()) return std::nullopt;
  OwnedInt64View v;
  v.elem_type = out.ElemType();
  for (const auto& e : data->elements) v.values.push_back(*e.value);
  if (!data->scalar) v.dims = {static_cast<int64_t>(v.values.size())};
  return v;
}

// The value of Shape or Size on `node`, when the dimensions it needs are known.
std::optional<OwnedInt64View> Compute(const sdk::Node& node) {
  sdk::Value in = node.Input(0);
  if (!in) return std::nullopt;
  auto dims = in.Dims();
  const int64_t rank = static_cast<int64_t>(dims.size());
  OwnedInt64View v;
  if (node.Is("Shape") && in.Rank() >= 0) {
    auto clamp = [&](int64_t a) { return std::clamp(a < 0 ? a + rank : a, int64_t{0}, rank); };
    int64_t start = clamp(node.GetInt("start", 0)), end = clamp(node.GetInt("end", rank));
    for (int64_t i = start; i < end; ++i) {
      if (dims[static_cast<size_t>(i)] < 0) return std::nullopt;
      v.values.push_back(dims[static_cast<size_t>(i)]);
    }
    v.dims = {static_cast<int64_t>(v.values.size())};
    return v;
  }
  if (node.Is("Gather") && node.GetInt("axis", 0) == 0) {
    // Gather(Shape(x), indices): the selected dimensions only (a symbolic batch leaves the others computable).
    size_t index = 0;
    sdk::Node shape = in.Producer(&index);
    sdk::Value idx = node.Input(1);
    if (!shape || !shape.Is("Shape") || !idx || !idx.IsConstant()) return std::nullopt;
    sdk::Value x = shape.Input(0);
    if (!x || x.Rank() < 0) return std::nullopt;
    auto xd = x.Dims();
    const int64_t xr = static_cast<int64_t>(xd.size());
    auto clamp = [&](int64_t a) { return std::clamp(a < 0 ? a + xr : a, int64_t{0}, xr); };
    int64_t start = clamp(shape.GetInt("start", 0)), end = clamp(shape.GetInt("end", xr));
    sdk::TensorView t = idx.ConstantData();
    std::vector<int64_t> picks;
    if (t.ElemType() == KILN_ELEM_INT64) picks.assign(t.Values<int64_t>().begin(), t.Values<int64_t>().end());
    else if (t.ElemType() == KILN_ELEM_INT32) picks.assign(t.Values<int32_t>().begin(), t.Values<int32_t>().end());
    else return std::nullopt;
    const int64_t n = end - start;
    for (int64_t p : picks) {
      if (p < -n || p >= n) return std::nullopt;
      int64_t d = xd[static_cast<size_t>(start + (p < 0 ? p + n : p))];
      if (d < 0) return std::nullopt;
      v.values.push_back(d);
    }
    v.dims.assign(t.Dims().begin(), t.Dims().end());
    return v;
  }
  if (node.Is("Size") && in.Rank() >= 0) {
    int64_t n = 1;
    for (int64_t d : dims) {
      if (d < 0) return std::nullopt;
      n *= d;
    }
    v.values = {n};
    return v;  // a scalar
  }
  return ComputedByInference(node);
}

// A Shape/Size (or Gather of a Shape) whose input type may still be refined by inference: its rank is unknown,
// or a dimension is unknown without a name (or with a name ONNX's inference made up, "unk__N").
bool MayLearnFromInference(const sdk::Node& node) {
  if (!node.Is("Shape") && !node.Is("Size")) return false;
  if (HasMark(node, kPotentialConst) || Compute(node)) return false;
  sdk::Value in = node.Input(0);
  if (!in) return false;
  std::optional<sdk::TensorShape> shape = in.Shape();
  if (!shape) return true;
  for (const sdk::Dim& d : *shape)
    if (!d.IsKnown() && (d.symbol.empty() || d.symbol.starts_with("unk__"))) return true;
  return false;
}

}  // namespace

void DimensionComputePass::OnFinishGraph(sdk::PassContext& ctx, sdk::Graph graph) {
  // Folding changes shapes downstream (a Reshape whose shape became constant): when some Shape or Size still
  // lacks the dimensions it needs, infer again and hand back those that became computable.
  std::vector<sdk::Node> waiting;
  for (const sdk::Node& n : graph.Nodes())
    if (MayLearnFromInference(n)) waiting.push_back(n);
  if (waiting.empty()) return;
  graph.InferShapes();
  ctx.AddCounter("inference_reruns");
  const bool need_fold = ctx.OptionBool("need_fold");
  // Only a node that Run would now change is handed back, so the walk cannot come back here for nothing.
  auto would_change = [&](const sdk::Node& n) {
    if (!Compute(n)) return false;
    if (!need_fold) return !HasMark(n, kPotentialConst);
    sdk::Value out = n.Output(0);
    return out && (out.ConsumerCount() > 0 || out.IsGraphOutput());
  };
  for (const sdk::Node& n : waiting) {
    if (would_change(n)) ctx.RequestRepass(n);
    // Gather(Shape(x), i) reads only the dimensions it picks.
    for (sdk::Value out : n.Outputs())
      if (out)
        for (const sdk::Use& u : out.Consumers())
          if (u.node.Is("Gather") && would_change(u.node)) ctx.RequestRepass(u.node);
  }
}

std::vector<sdk::OptionSpec> DimensionComputePass::Options() {
  return {sdk::OptionSpec::Bool("need_fold", true, "fold now (true) or only mark a potential constant (false)")};
}

void DimensionComputePass::Run(sdk::PassContext& ctx, sdk::Node node) {
  bool need_fold = ctx.OptionBool("need_fold");
  if (!need_fold && HasMark(node, kPotentialConst)) return;  // already marked
  std::optional<OwnedInt64View> value = Compute(node);
  if (!value) return;
  // The consumers may have been visited while this value was unknown: hand them back (GE's re-pass of outputs).
  std::vector<sdk::Node> consumers;
  if (sdk::Value out = node.Output(0))
    for (const sdk::Use& u : out.Consumers()) consumers.push_back(u.node);
  struct Repass {
    sdk::PassContext& ctx;
    std::vector<sdk::Node>& nodes;
    ~Repass() {
      for (const sdk::Node& n : nodes)
        if (!n.IsDeleted()) ctx.RequestRepass(n);
    }
  } repass{ctx, consumers};
  if (need_fold) {
    sdk::Value out = node.Output(0);
    if (!out || (out.ConsumerCount() == 0 && !out.IsGraphOutput())) return;
    ReplaceOutputsWithConstants(node, [&](size_t) { return value->View(); });
    ctx.AddCounter("nodes_folded");
  } else {
    MarkPotentialConst(node, value->View(), kName);
    ctx.AddCounter("nodes_marked");
  }
}

}  // namespace kiln::folding

KILN_PLUGIN_PART(DimensionComputePass) { reg.AddNodePass<kiln::folding::DimensionComputePass>(); }
