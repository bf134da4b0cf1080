// TransposePushPass: see transpose_push_pass.h.
//
// Each op family has a planner that checks everything and says what to change (a Rewrite); nothing in the graph
// changes until a plan is complete, so a node the pass does not handle is left exactly as it was.
#include "transpose_push_pass.h"

#include <kiln/kiln_plugin_parts.hpp>

#include "constant_ints.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <numeric>
#include <optional>
#include <string_view>
#include <vector>

namespace kiln::folding {
namespace {

using Perm = std::vector<int64_t>;

// Op(Transpose(x, p), scalars...) -> Transpose(Op(x, scalars...), p)
constexpr auto kUnary = std::to_array<std::string_view>({
    "Relu", "Sigmoid", "Tanh", "Abs", "Neg", "Exp", "Log", "Sqrt", "Erf", "Reciprocal", "Floor", "Ceil", "Round",
    "Sign", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Softplus",
    "Softsign", "Not", "IsNaN", "IsInf", "HardSigmoid", "HardSwish", "Selu", "Elu", "Celu", "LeakyRelu",
    "ThresholdedRelu", "Gelu", "Cast", "Clip"});
// Op(Transpose(x, p), c) -> Transpose(Op(x, Transpose(c, p^-1)), p), any input may carry the Transpose
constexpr auto kNary = std::to_array<std::string_view>({
    "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Mean", "Sum", "Mod", "Equal", "Less", "Greater", "LessOrEqual",
    "GreaterOrEqual", "And", "Or", "Xor", "BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "PRelu", "Where"});
// Reduce<axes=A>(Transpose(x, p)) -> Transpose(Reduce<axes=p[A]>(x), q)
constexpr auto kReduce = std::to_array<std::string_view>({
    "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
    "ReduceLogSumExp", "ReduceSumSquare"});

template <size_t N>
bool IsOneOf(std::string_view op, const std::array<std::string_view, N>& ops) {
  return std::ranges::find(ops, op) != ops.end();
}

bool IsIdentity(const Perm& p) {
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] != static_cast<int64_t>(i)) return false;
  return true;
}

Perm Inverse(const Perm& p) {
  Perm inv(p.size());
  for (size_t j = 0; j < p.size(); ++j) inv[static_cast<size_t>(p[j])] = static_cast<int64_t>(j);
  return inv;
}

// The Transpose's permutation (a missing perm reverses the input's dimensions); nullopt when not a valid one.
std::optional<Perm> PermOf(const sdk::Node& t) {
  Perm p = t.GetInts("perm");
  if (p.empty()) {
    int64_t rank = t.Input(0).Rank();
    if (rank <= 0) return std::nullopt;
    p.resize(static_cast<size_t>(rank));
    std::iota(p.rbegin(), p.rend(), 0);
  }
  std::vector<bool> seen(p.size(), false);
  for (int64_t a : p) {
    if (a < 0 || a >= static_cast<int64_t>(p.size()) || seen[static_cast<size_t>(a)]) return std::nullopt;
    seen[static_cast<size_t>(a)] = true;
  }
  return p;
}

// The Transpose producing `v` when `reader` alone reads v (in any number of slots) and v is no graph output.
sdk::Node MovableTranspose(const sdk::Value& v, const sdk::Node& reader) {
  if (!v || v.IsGraphOutput()) return {};
  sdk::Node t = v.Producer();
  if (!t || !t.Is("Transpose") || t.InputCount() < 1 || !t.Input(0)) return {};
  for (const sdk::Use& u : v.Consumers())
    if (!(u.node == reader)) return {};
  return t;
}

// Axes normalised against `rank`, each once, sorted; nullopt when one is out of range or repeated.
std::optional<std::vector<int64_t>> Normalized(std::vector<int64_t> axes, int64_t rank) {
  for (int64_t& a : axes) {
    if (a < -rank || a >= rank) return std::nullopt;
    if (a < 0) a += rank;
  }
  std::ranges::sort(axes);
  if (std::ranges::adjacent_find(axes) != axes.end()) return std::nullopt;
  return axes;
}

// Axes of the Transpose's output mapped to its input's: axis a of t is axis p[a] of x.
std::vector<int64_t> Mapped(const std::vector<int64_t>& axes, const Perm& p) {
  std::vector<int64_t> out;
  for (int64_t a : axes) out.push_back(p[static_cast<size_t>(a)]);
  std::ranges::sort(out);
  return out;
}

// Dimensions permuted: out[j] = in[q[j]]; unknown when `s` is unknown or of another rank.
std::optional<sdk::TensorShape> Permuted(const std::optional<sdk::TensorShape>& s, const Perm& q) {
  if (!s || s->size() != q.size()) return std::nullopt;
  sdk::TensorShape out(q.size());
  for (size_t j = 0; j < q.size(); ++j) out[j] = (*s)[static_cast<size_t>(q[j])];
  return out;
}

// A tensor of one element and rank <= n: the same in every layout, so it stays where it is.
bool IsOneElement(const sdk::Value& v, size_t n) {
  if (std::optional<sdk::TensorShape> s = v.Shape())
    return s->size() <= n && std::ranges::all_of(*s, [](const sdk::Dim& d) { return d.value == 1; });
  sdk::TensorView t = v.IsConstant() ? v.ConstantData() : sdk::TensorView();
  return t && t.Rank() <= n && t.ElementCount() == 1;
}

// Whether TransposedConstant can permute `c` to rank n.
bool CanTranspose(const sdk::Value& c, size_t n) {
  if (!c.IsConstant()) return false;
  sdk::TensorView t = c.ConstantData();
  if (!t || t.ElemType() == KILN_ELEM_STRING || t.Rank() > n) return false;
  size_t elem = kiln_elem_type_size(t.ElemType());
  return elem > 0 && t.ByteSize() == elem * static_cast<uint64_t>(t.ElementCount());
}

// The constant `c` seen at rank q.size() (leading dimensions of 1 added, as broadcasting does) and transposed by q,
// as a new constant: out.dims[j] = in.dims[q[j]].
sdk::Value TransposedConstant(const sdk::Graph& g, const sdk::Value& c, const Perm& q) {
  sdk::TensorView t = c.ConstantData();
  const size_t n = q.size(), elem = kiln_elem_type_size(t.ElemType());
  std::vector<int64_t> in(n, 1), stride(n, 1), out(n), step(n);
  std::ranges::copy(t.Dims(), in.begin() + static_cast<std::ptrdiff_t>(n - t.Rank()));
  for (size_t i = n - 1; i-- > 0;) stride[i] = stride[i + 1] * in[i + 1];
  for (size_t j = 0; j < n; ++j) {
    out[j] = in[static_cast<size_t>(q[j])];
    step[j] = stride[static_cast<size_t>(q[j])];
  }
  sdk::NewConstant nc = g.AllocateConstant(t.ElemType(), out);
  auto* dst = static_cast<char*>(nc.data.MutableData());
  const auto* src = static_cast<const char*>(t.Data());
  std::vector<int64_t> idx(n, 0);
  int64_t off = 0;
  for (int64_t k = 0, count = t.ElementCount(); k < count; ++k) {
    std::memcpy(dst + static_cast<size_t>(k) * elem, src + static_cast<size_t>(off) * elem, elem);
    for (size_t j = n; j-- > 0;) {  // the next output index, row-major; off follows it in the input
      off += step[j];
      if (++idx[j] < out[j]) break;
      off -= step[j] * out[j];
      idx[j] = 0;
    }
  }
  return nc.value;
}

sdk::Value IntsConstant(const sdk::Graph& g, const std::vector<int64_t>& v) {
  const int64_t dims[] = {static_cast<int64_t>(v.size())};
  return g.CreateConstant<int64_t>(dims, std::span<const int64_t>(v));
}

// What a planner decided: inputs to rewire, Transposes that go, other edits, the permutation after the outputs.
struct Rewrite {
  struct Input {
    size_t slot;
    sdk::Value value;
    bool transpose_constant;  // value is a constant to permute by p^-1
  };
  std::vector<Input> inputs;
  std::vector<sdk::Node> moved;
  Perm p, q;                  // the moved perm; the perm after every output (empty or identity: none)
  std::function<void()> edit;  // attribute and axes changes
};

// The rewrite for inputs [0, data_inputs): each a movable Transpose with the perm of the first one, a one-element
// tensor, or (when `constants`) a constant of rank <= n. Inputs past data_inputs must be absent or one element
// when `scalar_rest` (Clip's min and max), else the family's planner reads them.
std::optional<Rewrite> PlanInputs(const sdk::Node& node, size_t data_inputs, bool constants, bool scalar_rest) {
  Rewrite rw;
  std::optional<Perm> p;
  data_inputs = std::min(data_inputs, node.InputCount());
  for (size_t i = 0; i < data_inputs && !p; ++i)
    if (sdk::Node t = MovableTranspose(node.Input(i), node)) p = PermOf(t);
  if (!p) return std::nullopt;
  const size_t n = p->size();
  for (size_t i = 0; i < (scalar_rest ? node.InputCount() : data_inputs); ++i) {
    sdk::Value v = node.Input(i);
    if (!v) continue;
    if (sdk::Node t = i < data_inputs ? MovableTranspose(v, node) : sdk::Node(); t && PermOf(t) == p) {
      rw.inputs.push_back({i, t.Input(0), false});
      if (std::ranges::find(rw.moved, t) == rw.moved.end()) rw.moved.push_back(t);
    } else if (IsOneElement(v, n)) {
      continue;
    } else if (constants && i < data_inputs && CanTranspose(v, n)) {
      rw.inputs.push_back({i, v, true});
    } else {
      return std::nullopt;
    }
  }
  rw.p = rw.q = *p;
  return rw;
}

// Reduce<axes=A, keepdims>(Transpose(x, p)) -> Transpose(Reduce<axes=p[A]>(x), q)
std::optional<Rewrite> PlanReduce(const sdk::Node& node) {
  std::optional<Rewrite> rw = PlanInputs(node, 1, false, false);
  if (!rw || rw->inputs.size() != 1 || rw->inputs[0].slot != 0) return std::nullopt;
  const Perm& p = rw->p;
  const int64_t n = static_cast<int64_t>(p.size());
  const bool keep = node.GetInt("keepdims", 1) != 0, axes_attr = node.HasAttr("axes");
  std::optional<std::vector<int64_t>> axes = std::vector<int64_t>{};
  if (axes_attr) axes = node.GetInts("axes");
  else if (node.InputCount() > 1 && node.Input(1)) axes = ConstInts(node.Input(1));
  if (!axes) return std::nullopt;
  if (axes->empty()) {
    // No axes: an identity (noop_with_empty_axes) keeps p; a reduction of everything has ones or a scalar left.
    if (node.GetInt("noop_with_empty_axes", 0) == 0) rw->q.clear();
    return rw;
  }
  axes = Normalized(*axes, n);
  if (!axes) return std::nullopt;
  std::vector<int64_t> mapped = Mapped(*axes, p);
  if (!keep) {
    // The kept dimensions of x, in order, renumbered; t's kept dimension j is x's p[j].
    std::vector<int64_t> pos(static_cast<size_t>(n), -1);
    for (int64_t k = 0, next = 0; k < n; ++k)
      if (!std::ranges::binary_search(mapped, k)) pos[static_cast<size_t>(k)] = next++;
    rw->q.clear();
    for (int64_t j = 0; j < n; ++j)
      if (!std::ranges::binary_search(*axes, j)) rw->q.push_back(pos[static_cast<size_t>(p[static_cast<size_t>(j)])]);
  }
  rw->edit = [node, mapped, axes_attr] {
    if (axes_attr) node.SetInts("axes", mapped);
    else node.SetInput(1, IntsConstant(node.OwnerGraph(), mapped));
  };
  return rw;
}

// Concat<axis=a>(Transpose(x, p), ...) -> Transpose(Concat<axis=p[a]>(x, ...), p)
std::optional<Rewrite> PlanConcat(const sdk::Node& node) {
  std::optional<Rewrite> rw = PlanInputs(node, node.InputCount(), true, true);
  if (!rw || !node.HasAttr("axis")) return std::nullopt;
  std::optional<std::vector<int64_t>> axis = Normalized({node.GetInt("axis", 0)}, static_cast<int64_t>(rw->p.size()));
  if (!axis) return std::nullopt;
  int64_t mapped = rw->p[static_cast<size_t>(axis->front())];
  rw->edit = [node, mapped] { node.SetInt("axis", mapped); };
  return rw;
}

// Split<axis=a>(Transpose(x, p)) -> Transpose(each output of Split<axis=p[a]>(x), p), when Transposes alone read
// every output (each created Transpose then merges with its reader).
std::optional<Rewrite> PlanSplit(const sdk::Node& node) {
  std::optional<Rewrite> rw = PlanInputs(node, 1, false, false);
  if (!rw) return std::nullopt;
  for (const sdk::Value& y : node.Outputs()) {
    if (!y) continue;
    if (y.IsGraphOutput()) return std::nullopt;
    for (const sdk::Use& u : y.Consumers())
      if (!u.node.Is("Transpose")) return std::nullopt;
  }
  std::optional<std::vector<int64_t>> axis = Normalized({node.GetInt("axis", 0)}, static_cast<int64_t>(rw->p.size()));
  if (!axis) return std::nullopt;
  int64_t mapped = rw->p[static_cast<size_t>(axis->front())];
  rw->edit = [node, mapped] { node.SetInt("axis", mapped); };
  return rw;
}

// Pad(Transpose(x, p), pads) -> Transpose(Pad(x, pads'), p), pads'[p[j]] = pads[j] (begins, then ends); with an
// axes input, the axes are mapped instead.
std::optional<Rewrite> PlanPad(const sdk::Node& node) {
  std::optional<Rewrite> rw = PlanInputs(node, 1, false, false);
  if (!rw) return std::nullopt;
  const Perm& p = rw->p;
  const size_t n = p.size();
  const bool attr = node.OwnerGraph().OpsetVersion("") < 11;
  if (!attr && node.InputCount() > 3 && node.Input(3)) {
    std::optional<std::vector<int64_t>> axes = ConstInts(node.Input(3));
    if (!axes) return std::nullopt;
    for (int64_t& a : *axes) {  // order matters here: pads follow the axes as listed
      if (a < -static_cast<int64_t>(n) || a >= static_cast<int64_t>(n)) return std::nullopt;
      a = p[static_cast<size_t>(a < 0 ? a + static_cast<int64_t>(n) : a)];
    }
    rw->edit = [node, axes = *axes] { node.SetInput(3, IntsConstant(node.OwnerGraph(), axes)); };
    return rw;
  }
  std::optional<std::vector<int64_t>> pads = attr ? std::optional(node.GetInts("pads"))
                                                  : (node.InputCount() > 1 ? ConstInts(node.Input(1)) : std::nullopt);
  if (!pads || pads->size() != 2 * n) return std::nullopt;
  std::vector<int64_t> out(2 * n);
  for (size_t j = 0; j < n; ++j) {
    out[static_cast<size_t>(p[j])] = (*pads)[j];
    out[n + static_cast<size_t>(p[j])] = (*pads)[n + j];
  }
  rw->edit = [node, out, attr] {
    if (attr) node.SetInts("pads", out);
    else node.SetInput(1, IntsConstant(node.OwnerGraph(), out));
  };
  return rw;
}

// Slice(Transpose(x, p), starts, ends, axes, steps) -> Transpose(Slice(x, starts, ends, p[axes], steps), p)
std::optional<Rewrite> PlanSlice(const sdk::Node& node) {
  if (node.OwnerGraph().OpsetVersion("") < 10 || node.InputCount() < 3) return std::nullopt;
  std::optional<Rewrite> rw = PlanInputs(node, 1, false, false);
  if (!rw) return std::nullopt;
  const Perm& p = rw->p;
  const int64_t n = static_cast<int64_t>(p.size());
  std::optional<std::vector<int64_t>> axes;
  if (node.InputCount() > 3 && node.Input(3)) {
    axes = ConstInts(node.Input(3));
  } else if (std::optional<std::vector<int64_t>> starts = ConstInts(node.Input(1))) {
    axes = std::vector<int64_t>(starts->size());
    std::iota(axes->begin(), axes->end(), 0);
  }
  if (!axes) return std::nullopt;
  for (int64_t& a : *axes) {  // one per start, in order
    if (a < -n || a >= n) return std::nullopt;
    a = p[static_cast<size_t>(a < 0 ? a + n : a)];
  }
  rw->edit = [node, axes = *axes] { node.SetInput(3, IntsConstant(node.OwnerGraph(), axes)); };
  return rw;
}

// `node` is of the default domain (Run), and its op type is read once: matched name by name through sdk::Node::Is
// (two host calls and a strlen each), the 78 names made the pass 42.7 ms of the 100k-node chain's O2, 12.7 ms now.
std::optional<Rewrite> Plan(const sdk::Node& node) {
  const std::string_view op = node.OpType();
  if (IsOneOf(op, kUnary)) return node.OutputCount() == 1 ? PlanInputs(node, 1, false, true) : std::nullopt;
  if (IsOneOf(op, kNary)) return node.OutputCount() == 1 ? PlanInputs(node, node.InputCount(), true, true) : std::nullopt;
  if (IsOneOf(op, kReduce)) return node.OutputCount() == 1 ? PlanReduce(node) : std::nullopt;
  if (op == "Concat") return PlanConcat(node);
  if (op == "Split") return PlanSplit(node);
  if (op == "Pad") return node.OutputCount() == 1 ? PlanPad(node) : std::nullopt;
  if (op == "Slice") return node.OutputCount() == 1 ? PlanSlice(node) : std::nullopt;
  return std::nullopt;
}

// Puts Transpose(q) between `y` and its readers (y, in x's layout now, gets the permuted-back shape).
void TransposeAfter(const sdk::PassContext& ctx, const sdk::Graph& g, const sdk::Value& y, const Perm& q,
                    const sdk::Value& placeholder) {
  const std::optional<sdk::TensorShape> old = y.Shape();
  const int32_t elem = y.ElemType();
  if (elem > 0) y.SetTensorType(elem, Permuted(old, Inverse(q)));
  if (y.ConsumerCount() == 0 && !y.IsGraphOutput()) return;
  sdk::Node t = g.CreateNode("Transpose", {placeholder}, 1);  // reads y once y's readers moved to it
  t.SetInts("perm", q);
  sdk::Value out = t.Output(0);
  y.ReplaceAllUsesWith(out);
  t.SetInput(0, y);
  if (elem > 0) out.SetTensorType(elem, old);
  for (const sdk::Use& u : out.Consumers()) ctx.RequestRepass(u.node);  // readers already visited look again
}

}  // namespace

const std::vector<std::string_view> TransposePushPass::kOpTypes = [] {
  std::vector<std::string_view> types(kUnary.begin(), kUnary.end());
  types.insert(types.end(), kNary.begin(), kNary.end());
  types.insert(types.end(), kReduce.begin(), kReduce.end());
  for (std::string_view t : {"Concat", "Split", "Pad", "Slice"}) types.push_back(t);
  return types;
}();

void TransposePushPass::Run(sdk::PassContext& ctx, sdk::Node node) {
  if (!node.Domain().empty()) return;
  std::optional<Rewrite> rw = Plan(node);
  if (!rw) return;
  const bool absorbed = IsIdentity(rw->q);
  std::vector<sdk::Value> outputs = node.Outputs();
  // A Transpose moved onto a graph output removes nothing (and would rename the output): leave it.
  if (!absorbed && std::ranges::any_of(outputs, [](const sdk::Value& y) { return y && y.IsGraphOutput(); })) return;
  sdk::Graph g = node.OwnerGraph();
  const Perm inverse = Inverse(rw->p);
  for (const Rewrite::Input& in : rw->inputs)
    node.SetInput(in.slot, in.transpose_constant ? TransposedConstant(g, in.value, inverse) : in.value);
  if (rw->edit) rw->edit();
  if (!absorbed)
    for (const sdk::Value& y : outputs)
      if (y) TransposeAfter(ctx, g, y, rw->q, node.Input(0));
  for (const sdk::Node& t : rw->moved)
    if (!t.IsDeleted() && t.Output(0).ConsumerCount() == 0) t.Delete();
  ctx.AddCounter("transposes_pushed");
  if (absorbed) ctx.AddCounter("transposes_absorbed");
}

}  // namespace kiln::folding

KILN_PLUGIN_PART(TransposePushPass) { reg.AddNodePass<kiln::folding::TransposePushPass>(); }
