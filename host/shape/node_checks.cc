// Checks before inference: see node_checks.h.
#include "shape/node_checks.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <onnx/defs/data_type_utils.h>

#include "ir/graph.h"
#include "ir/model.h"
#include "ir/node.h"
#include "onnx/proto_convert.h"
#include "shape/onnx_node.h"
#include "support/error.h"

namespace kiln {
namespace {

// The convolution and pooling family: the input whose rank sets the spatial axes, and the weight input (or -1).
struct SpatialOp {
  std::string_view op;
  int data;
  int weight;
};
constexpr SpatialOp kSpatialOps[] = {
    {"Conv", 0, 1},        {"ConvInteger", 0, 1},  {"QLinearConv", 0, 3}, {"ConvTranspose", 0, 1},
    {"AveragePool", 0, -1}, {"MaxPool", 0, -1},    {"LpPool", 0, -1},     {"MaxUnpool", 0, -1},
    {"MaxRoiPool", 0, -1}, {"DeformConv", 0, 1},
};

// Inputs whose rank an op's inference indexes by without checking it (libonnx 1.12's Gemm reads dims 0 and 1 of
// A and B: a scalar B crashed it, found by the compile_diff fuzzer; STFT reads dim 2 of its signal, found by a
// sweep of hostile attributes and ranks over every ONNX op).
struct FixedRank {
  std::string_view op;
  int input;
  size_t rank;
};
constexpr FixedRank kFixedRanks[] = {{"Gemm", 0, 2}, {"Gemm", 1, 2}, {"STFT", 0, 3}};

std::optional<size_t> RankOf(const Node& n, int input);

// Ops whose `axis` attribute counts the axes of an input, with the range ONNX's spec allows: [-r, r-1], or [-r, r]
// where `to_rank` is set. libonnx 1.12's LayerNormalization inference indexes the dims with the axis it is given
// (an axis of -32772 crashed it, found by the compile_diff fuzzer); the others are checked because the spec makes
// any other axis an invalid model, and a kernel or a pass may trust it.
struct AxisRange {
  std::string_view op;
  int input;
  bool to_rank;
};
constexpr AxisRange kAxisRanges[] = {
    {"LayerNormalization", 0, true}, {"Flatten", 0, true},          {"Softmax", 0, false},
    {"LogSoftmax", 0, false},        {"Hardmax", 0, false},         {"Gather", 0, false},
    {"GatherElements", 0, false},    {"ScatterElements", 0, false}, {"Scatter", 0, false},
    {"Concat", 0, false},            {"Split", 0, false},           {"ArgMax", 0, false},
    {"ArgMin", 0, false},            {"TopK", 0, false},
};

// GatherND's batch_dims counts leading axes of both inputs: the spec asks for 0 <= batch_dims < min(r, q), and
// libonnx 1.12's inference indexes the dims with it (a negative one crashed it, found by the sweep above).
std::optional<std::string> CheckBatchDims(const Node& n) {
  if (n.op_type() != "GatherND") return std::nullopt;
  const Attribute* b = n.FindAttribute("batch_dims");
  if (b == nullptr || !b->i) return std::nullopt;
  if (*b->i < 0) return "batch_dims is " + std::to_string(*b->i) + "; it must not be negative";
  const std::optional<size_t> r = RankOf(n, 0), q = RankOf(n, 1);
  if (r && q && static_cast<uint64_t>(*b->i) >= std::min(*r, *q))
    return "batch_dims is " + std::to_string(*b->i) + "; it must be less than both inputs' ranks (" +
           std::to_string(*r) + " and " + std::to_string(*q) + ")";
  return std::nullopt;
}

// The axis a node uses: its attribute, else the schema's default (LayerNormalization's -1 on a scalar input
// crashed libonnx 1.12 too).
std::optional<int64_t> AxisOf(const Node& n, const onnx::OpSchema& schema) {
  if (const Attribute* axis = n.FindAttribute("axis")) return axis->i;
  auto it = schema.attributes().find("axis");
  if (it == schema.attributes().end() || !it->second.default_value.has_i()) return std::nullopt;
  return it->second.default_value.i();
}

std::optional<std::string> CheckAxis(const Node& n, const onnx::OpSchema& schema) {
  for (const AxisRange& a : kAxisRanges) {
    if (a.op != n.op_type()) continue;
    const std::optional<int64_t> axis = AxisOf(n, schema);
    const std::optional<size_t> rank = RankOf(n, a.input);
    if (!axis || !rank) return std::nullopt;
    const auto r = static_cast<int64_t>(*rank);
    const int64_t high = a.to_rank ? r : r - 1;
    if (*axis < -r || *axis > high)
      return "axis is " + std::to_string(*axis) + "; input " + std::to_string(a.input) + " has rank " +
             std::to_string(r) + ", so " + std::string(a.op) + "'s axis must be in [" + std::to_string(-r) + ", " +
             std::to_string(high) + "]";
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::string> CheckFixedRanks(const Node& n) {
  for (const FixedRank& f : kFixedRanks) {
    if (f.op != n.op_type()) continue;
    if (auto r = RankOf(n, f.input); r && *r != f.rank)
      return "input " + std::to_string(f.input) + " has rank " + std::to_string(*r) + "; " + std::string(f.op) +
             " needs rank " + std::to_string(f.rank);
  }
  return std::nullopt;
}

std::optional<size_t> RankOf(const Node& n, int input) {
  if (input < 0) return std::nullopt;
  const Value* v = n.input(static_cast<size_t>(input));
  if (v == nullptr || !v->type().is_tensor() || !v->type().shape) return std::nullopt;
  return v->type().shape->rank();
}

std::optional<std::string> CheckSpatial(const Node& n, const SpatialOp& op) {
  const std::optional<size_t> rank = RankOf(n, op.data);
  if (!rank) return std::nullopt;  // ONNX's inference needs the rank too: it does nothing without it
  if (*rank < 3) return "input " + std::to_string(op.data) + " has rank " + std::to_string(*rank) +
                        "; " + std::string(op.op) + " needs a batch, a channel and at least one spatial axis";
  const size_t spatial = *rank - 2;
  if (auto w = RankOf(n, op.weight); w && *w != *rank)
    return "the weight (input " + std::to_string(op.weight) + ") has rank " + std::to_string(*w) +
           ", the input rank " + std::to_string(*rank);
  struct Per {
    std::string_view name;
    size_t per_axis;
    bool positive;
  };
  for (const Per& p : {Per{"kernel_shape", 1, true}, Per{"strides", 1, true}, Per{"dilations", 1, true},
                       Per{"pads", 2, false}, Per{"output_padding", 1, false}}) {
    const Attribute* a = n.FindAttribute(p.name);
    if (a == nullptr) continue;
    if (a->ints.size() != spatial * p.per_axis)
      return std::string(p.name) + " has " + std::to_string(a->ints.size()) + " values; the input's " +
             std::to_string(spatial) + " spatial axes need " + std::to_string(spatial * p.per_axis);
    for (int64_t v : a->ints)
      if (p.positive ? v <= 0 : v < 0)
        return std::string(p.name) + " holds " + std::to_string(v) + "; every value must be " +
               (p.positive ? "positive" : "non-negative");
  }
  if (const Attribute* s = n.FindAttribute("output_shape"); s && s->ints.size() != spatial && s->ints.size() != *rank)
    return "output_shape has " + std::to_string(s->ints.size()) + " values for " + std::to_string(spatial) +
           " spatial axes";
  if (const Attribute* g = n.FindAttribute("group"); g && g->i && *g->i <= 0)
    return "group is " + std::to_string(*g->i) + "; it must be positive";
  return std::nullopt;
}

// ONNX's name of a type (an interned onnx::DataType), or nullopt where ONNX cannot name it (an element type left
// undefined). A tensor's name depends on its element type alone: it is looked up once per element type and thread,
// where building a TypeProto with every dim and interning its text took an eighth of InferShapePass on the
// generated 1M-node chain.
std::optional<onnx::DataType> OnnxTypeName(const Type& type) {
  auto name = [](const Type& t) -> std::optional<onnx::DataType> {
    onnx::TypeProto proto;
    TypeToProto(t, &proto);
    try {
      return onnx::Utils::DataTypeUtils::ToType(proto);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  };
  if (type.kind != Type::Kind::kTensor) return name(type);
  thread_local std::unordered_map<int64_t, std::optional<onnx::DataType>> tensors;
  const int64_t key = static_cast<int64_t>(type.elem) * 2 + (type.elem_declared ? 1 : 0);
  auto [it, inserted] = tensors.try_emplace(key);
  if (inserted) {
    Type bare;
    bare.kind = Type::Kind::kTensor;
    bare.elem = type.elem;
    bare.elem_declared = type.elem_declared;
    it->second = name(bare);
  }
  return it->second;
}

// Each typed input against the type constraint of its formal parameter (the last one when variadic): ONNX's
// inference functions read a tensor's element type from whatever they are given (a sequence, for one).
std::optional<std::string> CheckInputTypes(const Node& n, const onnx::OpSchema& schema) {
  const auto& formals = schema.inputs();
  if (formals.empty()) return std::nullopt;
  for (size_t i = 0; i < n.num_inputs(); ++i) {
    const Value* v = n.input(i);
    if (v == nullptr || v->type().kind == Type::Kind::kNone) continue;
    const auto& formal = formals[std::min(i, formals.size() - 1)];
    if (i >= formals.size() && formal.GetOption() != onnx::OpSchema::Variadic) break;  // Verify reports arity
    const auto& allowed = formal.GetTypes();
    if (allowed.empty()) continue;
    const std::optional<onnx::DataType> named = OnnxTypeName(v->type());
    if (!named) continue;  // a type ONNX cannot name: nothing to compare
    const onnx::DataType actual = *named;
    if (allowed.count(actual) == 0)
      return "input " + std::to_string(i) + " ('" + v->name() + "') has type " + *actual + ", which " +
             n.op_type() + " does not accept for '" + formal.GetName() + "' (type constraint " +
             formal.GetTypeStr() + ")";
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> CheckBeforeInference(const Node& n, const onnx::NodeProto& proto,
                                                const onnx::OpSchema& schema) {
  try {
    schema.Verify(proto);
  } catch (const std::exception& e) {
    std::string what = e.what();
    // ONNX appends the node's text after "==> Context:"; the caller names the node itself.
    if (auto at = what.find("\n\n==> Context:"); at != std::string::npos) what.resize(at);
    return what;
  }
  if (auto problem = CheckInputTypes(n, schema)) return problem;
  if (n.domain().empty())
    if (auto problem = CheckFixedRanks(n)) return problem;
  if (n.domain().empty())
    if (auto problem = CheckAxis(n, schema)) return problem;
  if (n.domain().empty())
    if (auto problem = CheckBatchDims(n)) return problem;
  if (n.domain().empty())
    for (const SpatialOp& op : kSpatialOps)
      if (op.op == n.op_type()) return CheckSpatial(n, op);
  return std::nullopt;
}

void CheckModelForInference(const Model& model) {
  ForEachGraphIn(model.graph(), [&](const Graph& g) {
    for (const auto& n : g.nodes()) {
      const onnx::OpSchema* schema = SchemaOf(*n);
      if (schema == nullptr) continue;
      if (auto problem = CheckBeforeInference(*n, NodeProtoOf(*n), *schema))
        throw ModelError("node '" + n->name() + "' (" + n->op_type() + "): " + *problem);
    }
  });
}

}  // namespace kiln
