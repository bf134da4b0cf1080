// The matcher; see matcher.h. State is a trail: a failed branch truncates the bound variables, labels and nodes
// back to where it started. The search backtracks over every choice (alternatives, operand orders, optional
// nodes) until the whole pattern and the rule's predicates hold, so no choice that fits locally can hide a match.
#include "matcher.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

namespace kiln::fusion {
namespace {

bool SameDomain(std::string_view a, std::string_view b) {
  auto norm = [](std::string_view d) { return d == "ai.onnx" ? std::string_view() : d; };
  return norm(a) == norm(b);
}

double HalfToDouble(uint16_t h) {
  uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  double v = exp == 0 ? std::ldexp(frac, -24) : exp == 31 ? INFINITY : std::ldexp(frac | 0x400, static_cast<int>(exp) - 25);
  return sign ? -v : v;
}

// Element i of numeric elements of type `elem` at `p` as double; nullopt for types without a number.
std::optional<double> ElementAt(int32_t elem, const unsigned char* p, size_t i) {
  switch (elem) {
    case KILN_ELEM_FLOAT: { float f; std::memcpy(&f, p + 4 * i, 4); return f; }
    case KILN_ELEM_DOUBLE: { double d; std::memcpy(&d, p + 8 * i, 8); return d; }
    case KILN_ELEM_FLOAT16: { uint16_t h; std::memcpy(&h, p + 2 * i, 2); return HalfToDouble(h); }
    case KILN_ELEM_BFLOAT16: { uint16_t h; std::memcpy(&h, p + 2 * i, 2); uint32_t b = uint32_t{h} << 16; float f; std::memcpy(&f, &b, 4); return f; }
    case KILN_ELEM_INT64: { int64_t v; std::memcpy(&v, p + 8 * i, 8); return static_cast<double>(v); }
    case KILN_ELEM_INT32: { int32_t v; std::memcpy(&v, p + 4 * i, 4); return v; }
    case KILN_ELEM_INT8: return static_cast<int8_t>(p[i]);
    case KILN_ELEM_UINT8: case KILN_ELEM_BOOL: return p[i];
    default: return std::nullopt;
  }
}

std::optional<double> ElementAt(const sdk::TensorView& t, size_t i) {
  return ElementAt(t.ElemType(), static_cast<const unsigned char*>(t.Data()), i);
}

// The elements of a constant whose type is static, from its type; -1 for another.
int64_t StaticElementCount(const sdk::Value& v) {
  if (!v.HasStaticShape()) return -1;
  int64_t n = 1;
  for (int64_t d : v.Dims()) n *= d;
  return n;
}

// A constant's elements: from its type where static, else from a view of it.
int64_t ConstantElementCount(const sdk::Value& v) {
  const int64_t n = StaticElementCount(v);
  return n >= 0 ? n : v.ConstantData().ElementCount();
}

// UniformConstant read through value_constant_read, a block at a time, so that nothing stays lent: a view
// (ConstantData) is held until the pass returns, and the identity rules (x * 1, x + 0) ask at every Add and Mul of
// the graph (the generated 1M-node chain: 666,666 views, 60 MB of the pass's peak). nullopt in `read` when the
// value's type does not give the constant's size or the host cannot read it so: the caller reads a view instead.
std::optional<double> UniformConstantRead(const sdk::Value& v, bool& read) {
  read = false;
  const KilnHostApi& h = sdk::Host();
  const int32_t elem = v.ElemType();
  const size_t bytes = elem == KILN_ELEM_STRING ? 0 : kiln_elem_type_size(elem);
  const int64_t count = StaticElementCount(v);
  if (bytes == 0 || count < 1 || !KILN_HOST_HAS(&h, value_constant_read) || h.value_constant_read == nullptr)
    return std::nullopt;
  alignas(8) unsigned char block[4096];
  const size_t per_block = sizeof(block) / bytes, total = static_cast<size_t>(count);
  std::optional<double> first;
  for (size_t at = 0; at < total; at += per_block) {
    const size_t n = std::min(per_block, total - at);
    if (KilnStatus* s = h.value_constant_read(v.raw(), at * bytes, n * bytes, block)) {
      h.status_release(s);  // the type disagrees with the data: read a view
      return std::nullopt;
    }
    if (at == 0) {
      first = ElementAt(elem, block, 0);
      if (!first) break;
    }
    for (size_t i = 0; i < n; ++i)
      if (ElementAt(elem, block, i) != first) {
        first.reset();
        break;
      }
    if (!first) break;
  }
  read = true;
  return first;
}

// Attributes an absent one stands for, where the op has a default a pattern may name.
std::optional<AttrValue> DefaultAttr(std::string_view op, std::string_view attr, int64_t opset) {
  AttrValue v;
  auto num = [&](double d) {
    v.number = d;
    return v;
  };
  if ((op == "Softmax" || op == "LogSoftmax" || op == "Hardmax") && attr == "axis") return num(opset >= 13 ? -1 : 1);
  if (op.rfind("Reduce", 0) == 0 && attr == "keepdims") return num(1);
  if (op == "Gemm" && (attr == "alpha" || attr == "beta")) return num(1);
  if (op == "Gemm" && (attr == "transA" || attr == "transB")) return num(0);
  if (op == "LeakyRelu" && attr == "alpha") return num(0.01);
  if (op == "HardSigmoid" && attr == "alpha") return num(0.2);
  if (op == "HardSigmoid" && attr == "beta") return num(0.5);
  if (op == "Elu" && attr == "alpha") return num(1.0);
  if ((op == "Gather" || op == "Split" || op == "GatherElements") && attr == "axis") return num(0);
  if (op == "Flatten" && attr == "axis") return num(1);
  if (op == "LayerNormalization" && attr == "axis") return num(-1);
  if (op == "LayerNormalization" && attr == "epsilon") return num(1e-5);
  if (op == "Gelu" && attr == "approximate") {
    v.kind = AttrValue::Kind::kString;
    v.text = "none";
    return v;
  }
  return std::nullopt;
}

bool NumbersEqual(double a, double b) { return std::fabs(a - b) <= 1e-6 * std::max(1.0, std::fabs(b)); }

// Normalizes an axis against the rank of the node's first input (when it is known).
double NormalAxis(double axis, int64_t rank) { return axis < 0 && rank > 0 ? axis + static_cast<double>(rank) : axis; }

// The rest of a match, called when a piece has matched: a reference to a callable (no allocation), valid for
// the call it is passed to.
class Cont {
 public:
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, Cont>>>
  Cont(F&& f) : obj_(const_cast<void*>(static_cast<const void*>(&f))),  // NOLINT: implicit on purpose
                call_([](void* o) { return (*static_cast<std::remove_reference_t<F>*>(o))(); }) {}
  bool operator()() const { return call_(obj_); }

 private:
  void* obj_;
  bool (*call_)(void*);
};

// Backtracking in continuation style: each Match* function matches its piece, then calls `k` (the rest of the
// match, the rule's predicates last); when `k` fails it tries the piece's next way (an alternative, the other
// operand order, an optional node absent), and only when none is left does it fail, with the state as it found
// it. So a choice made early (which operand of an Add is the constant) is revisited when something later (a
// sibling, a predicate) does not fit it.
class Matcher {
 public:
  // Works in `scratch` (reused between calls, so a failed attempt allocates little).
  Matcher(const Rule& rule, int64_t opset, fusion::Match& scratch) : rule_(rule), opset_(opset), m_(scratch) {}

  std::optional<fusion::Match> Run(sdk::Node root) {
    m_.rule = &rule_;
    m_.root = root;
    m_.vars.clear();
    m_.labels.clear();
    m_.nodes.clear();
    if ((rule_.min_opset && opset_ < rule_.min_opset) || (rule_.max_opset && opset_ > rule_.max_opset))
      return std::nullopt;
    if (!MatchRoot(*rule_.pattern, [this] { return Predicates(); })) return std::nullopt;
    // The root first, then the others in the order found, each once.
    fusion::Match out;
    out.rule = &rule_;
    out.root = m_.root;
    out.vars = m_.vars;
    out.labels = m_.labels;
    for (const sdk::Node& n : m_.nodes)
      if (std::find(out.nodes.begin(), out.nodes.end(), n) == out.nodes.end()) out.nodes.push_back(n);
    return out;
  }

 private:
  struct Mark {
    size_t vars, labels, nodes;
  };
  Mark Save() const { return {m_.vars.size(), m_.labels.size(), m_.nodes.size()}; }
  void Restore(const Mark& k) {
    m_.vars.resize(k.vars);
    m_.labels.resize(k.labels);
    m_.nodes.resize(k.nodes);
  }

  // The pattern's root is the root node: an op, an alternative of ops, or an optional op (absent: its argument
  // is the root).
  bool MatchRoot(const Pattern& p, Cont k) {
    if (p.kind == Pattern::Kind::kAlt) {
      for (const auto& a : p.args)
        if (MatchRoot(*a, k)) return true;
      return false;
    }
    if (p.kind != Pattern::Kind::kOp) return false;
    if (MatchOp(p, m_.root.Output(0), k)) return true;
    return p.optional && !OptionalNodeFollows(p) && MatchRoot(*p.args[0], k);
  }

  // An optional root left out here would be a smaller match than the one at the node that follows: the root's
  // value is read by one node only, which the rule matches with the optional node present. The match is that
  // node's, so that an optional Cast around a result goes into the group instead of being left outside it.
  bool OptionalNodeFollows(const Pattern& p) const {
    sdk::Value out = m_.root.Output(0);
    if (!out || out.IsGraphOutput() || out.ConsumerCount() != 1) return false;
    sdk::Node next = out.Consumers()[0].node;
    if (!next || next.OpType() != p.op_type || !SameDomain(next.Domain(), p.domain)) return false;
    fusion::Match scratch;
    return Matcher(rule_, opset_, scratch).Run(next).has_value();
  }

  bool MatchAny(const Pattern& p, const sdk::Value& v, Cont k) {
    switch (p.kind) {
      case Pattern::Kind::kAny: return v && k();
      case Pattern::Kind::kVar: return MatchVar(p.var, v, k);
      case Pattern::Kind::kAlt:
        for (const auto& a : p.args)
          if (MatchAny(*a, v, k)) return true;
        return false;
      case Pattern::Kind::kOp:
        if (MatchOp(p, v, k)) return true;
        return p.optional && MatchAny(*p.args[0], v, k);
    }
    return false;
  }

  // A variable met for the first time is bound (its local predicates checked at once, its `let` matched); met
  // again, it must be the same value. A variable is bound before its let is matched, so a let that refers to
  // itself meets its own binding and ends.
  bool MatchVar(const std::string& name, const sdk::Value& v, Cont k) {
    if (!v) return false;
    for (const auto& [n, bound] : m_.vars)
      if (*n == name) return bound == v && k();
    if (!LocalPredicates(name, v)) return false;
    Mark mark = Save();
    m_.vars.emplace_back(&name, v);
    auto let = rule_.lets.find(name);
    if (let == rule_.lets.end() ? k() : MatchAny(*let->second, v, k)) return true;
    Restore(mark);
    return false;
  }

  // An op pattern (kOp) on the node producing `v`.
  bool MatchOp(const Pattern& p, const sdk::Value& v, Cont k) {
    if (!v) return false;
    size_t out_index = 0;
    sdk::Node n = v.Producer(&out_index);
    if (!n || out_index != 0 || n.OpType() != p.op_type || !SameDomain(n.Domain(), p.domain)) return false;
    // The inputs: trailing empty slots do not count; Reduce*/Squeeze/Unsqueeze axes given as a constant input
    // (opset 13/18 on) stand for an `axes` predicate. The arity and attributes are checked before anything is
    // bound or allocated: most attempts end there.
    size_t count = n.InputCount();
    while (count > 0 && !n.Input(count - 1)) --count;
    bool axes_input = false;
    if (count == p.args.size() + 1 && HasAxesPredicate(p) && !n.Attr("axes")) {
      sdk::Value last = n.Input(count - 1);
      axes_input = last && last.IsConstant();
    }
    const size_t arity = axes_input ? count - 1 : count;
    if (p.more_inputs ? arity < p.args.size() : arity != p.args.size()) return false;
    if (!Attributes(p, n, axes_input ? n.Input(count - 1) : sdk::Value())) return false;
    if (!p.label.empty())
      for (const auto& [l, bound] : m_.labels)
        if (*l == p.label && bound != n) return false;
    Mark mark = Save();
    if (!p.label.empty()) m_.labels.emplace_back(&p.label, n);
    m_.nodes.push_back(n);
    std::vector<sdk::Value> inputs;
    inputs.reserve(arity);
    for (size_t i = 0; i < arity; ++i) inputs.push_back(n.Input(i));
    if (Args(p, inputs, 0, false, k)) return true;
    if (p.args.size() == 2 && IsCommutative(p.domain, p.op_type) && inputs[0] != inputs[1] &&
        Args(p, inputs, 0, true, k))
      return true;
    Restore(mark);
    return false;
  }

  // Arguments i.. of `p` on the inputs (the two operands exchanged when `swapped`), then `k`.
  bool Args(const Pattern& p, const std::vector<sdk::Value>& inputs, size_t i, bool swapped, Cont k) {
    if (i == p.args.size()) return k();
    const size_t j = swapped ? 1 - i : i;
    return MatchAny(*p.args[i], inputs[j], [&] { return Args(p, inputs, i + 1, swapped, k); });
  }

  static bool HasAxesPredicate(const Pattern& p) {
    for (const AttrPredicate& a : p.attrs)
      if (a.name == "axes") return true;
    return false;
  }

  bool Attributes(const Pattern& p, const sdk::Node& n, const sdk::Value& axes_input) {
    int64_t rank = n.InputCount() > 0 && n.Input(0) ? n.Input(0).Rank() : -1;
    for (const AttrPredicate& want : p.attrs) {
      const bool axis = want.name == "axis" || want.name == "axes";
      auto num_eq = [&](double have, double w) {
        return axis ? NormalAxis(have, rank) == NormalAxis(w, rank) : NumbersEqual(have, w);
      };
      if (want.name == "axes" && axes_input) {
        sdk::TensorView t = axes_input.ConstantData();
        if (!t || want.value.kind != AttrValue::Kind::kList ||
            static_cast<size_t>(t.ElementCount()) != want.value.list.size())
          return false;
        for (size_t i = 0; i < want.value.list.size(); ++i)
          if (!num_eq(ElementAt(t, i).value_or(NAN), want.value.list[i])) return false;
        continue;
      }
      sdk::Attribute a = n.Attr(want.name);
      if (!a) {
        std::optional<AttrValue> d = DefaultAttr(p.op_type, want.name, opset_);
        if (!d) return false;
        if (d->kind == AttrValue::Kind::kString) {
          if (want.value.kind != AttrValue::Kind::kString || d->text != want.value.text) return false;
        } else if (want.value.kind != AttrValue::Kind::kNumber || !num_eq(d->number, want.value.number)) {
          return false;
        }
        continue;
      }
      switch (a.Type()) {
        case KILN_ATTR_INT:
          if (want.value.kind != AttrValue::Kind::kNumber || !num_eq(static_cast<double>(a.Int()), want.value.number))
            return false;
          break;
        case KILN_ATTR_FLOAT:
          if (want.value.kind != AttrValue::Kind::kNumber || !NumbersEqual(a.Float(), want.value.number)) return false;
          break;
        case KILN_ATTR_STRING:
          if (want.value.kind != AttrValue::Kind::kString || a.String() != want.value.text) return false;
          break;
        case KILN_ATTR_INTS: {
          auto have = a.Ints();
          if (want.value.kind != AttrValue::Kind::kList || have.size() != want.value.list.size()) return false;
          for (size_t i = 0; i < have.size(); ++i)
            if (!num_eq(static_cast<double>(have[i]), want.value.list[i])) return false;
          break;
        }
        case KILN_ATTR_FLOATS: {
          auto have = a.Floats();
          if (want.value.kind != AttrValue::Kind::kList || have.size() != want.value.list.size()) return false;
          for (size_t i = 0; i < have.size(); ++i)
            if (!NumbersEqual(have[i], want.value.list[i])) return false;
          break;
        }
        default: return false;
      }
    }
    return true;
  }

  // ---- predicates on what was bound
  ExprContext Context() const {
    ExprContext c;
    c.dim = [this](const std::string& var, int64_t i) -> std::optional<double> {
      sdk::Value v = m_.ValueOf(var);
      if (!v) return std::nullopt;
      auto dims = v.Dims();
      int64_t r = static_cast<int64_t>(dims.size());
      if (v.Rank() < 0 || i < -r || i >= r) return std::nullopt;
      int64_t d = dims[static_cast<size_t>(i < 0 ? i + r : i)];
      return d < 0 ? std::nullopt : std::optional<double>(static_cast<double>(d));
    };
    c.rank = [this](const std::string& var) -> std::optional<double> {
      sdk::Value v = m_.ValueOf(var);
      if (!v || v.Rank() < 0) return std::nullopt;
      return static_cast<double>(v.Rank());
    };
    c.value = [this](const std::string& var) { return UniformConstant(m_.ValueOf(var)); };
    return c;
  }

  // What `where:` says of one bound value. `local`: only what the value alone decides (checked when it is
  // bound, to cut the search early); else all of it, expressions over other variables and shapes compared
  // with other values included.
  bool Holds(const ValuePredicate& pred, const sdk::Value& v, bool local) const {
    if (pred.constant && !v.IsConstant()) return false;
    if (pred.scalar && (!v.IsConstant() || ConstantElementCount(v) != 1)) return false;
    if (pred.equals && (!local || pred.equals->Vars().empty())) {
      std::optional<double> want = pred.equals->Eval(Context());
      std::optional<double> have = UniformConstant(v);
      if (!want || !have) return false;
      double tol = pred.tolerance * std::max(1.0, std::fabs(*want));
      if (std::fabs(*have - *want) > tol) return false;
    }
    if (!pred.ranks.empty() && std::find(pred.ranks.begin(), pred.ranks.end(), v.Rank()) == pred.ranks.end())
      return false;
    if (!pred.elem_types.empty() &&
        std::find(pred.elem_types.begin(), pred.elem_types.end(), v.ElemType()) == pred.elem_types.end())
      return false;
    if (pred.static_shape && !v.HasStaticShape()) return false;
    if (pred.shape) {
      auto dims = v.Dims();
      if (v.Rank() != static_cast<int64_t>(pred.shape->size())) return false;
      for (size_t i = 0; i < dims.size(); ++i)
        if ((*pred.shape)[i] >= 0 && dims[i] != (*pred.shape)[i]) return false;
    }
    if (pred.single_use && v.ConsumerCount() != 1) return false;
    if (local) return true;
    for (const std::string& other : pred.same_shape_as) {
      sdk::Value o = m_.ValueOf(other);
      auto a = v.Shape(), b = o ? o.Shape() : std::nullopt;
      if (!a || !b || *a != *b) return false;
      for (const sdk::Dim& d : *a)
        if (!d.IsKnown() && d.symbol.empty()) return false;  // unknown dims prove nothing
    }
    return true;
  }

  bool LocalPredicates(const std::string& name, const sdk::Value& v) const {
    auto it = rule_.where.find(name);
    return it == rule_.where.end() || Holds(it->second, v, true);
  }

  // The last step of a match: the opset range and every predicate on what was bound.
  bool Predicates() const {
    if (rule_.min_opset && opset_ < rule_.min_opset) return false;
    if (rule_.max_opset && opset_ > rule_.max_opset) return false;
    for (const auto& [name, pred] : rule_.where) {
      sdk::Value v = m_.ValueOf(name);
      if (!v) continue;  // a variable of an alternative that did not match
      if (!Holds(pred, v, false)) return false;
    }
    return true;
  }

  const Rule& rule_;
  int64_t opset_;
  fusion::Match& m_;
};

}  // namespace

sdk::Value Match::Var(std::string_view name) const {
  for (const auto& [n, v] : vars)
    if (*n == name) return v;
  return {};
}
sdk::Node Match::Label(std::string_view name) const {
  for (const auto& [n, node] : labels)
    if (*n == name) return node;
  return {};
}
sdk::Value Match::ValueOf(std::string_view name) const {
  if (sdk::Value v = Var(name)) return v;
  if (sdk::Node n = Label(name)) return n.Output(0);
  return {};
}

std::optional<double> UniformConstant(const sdk::Value& v) {
  if (!v || !v.IsConstant()) return std::nullopt;
  bool read = false;
  std::optional<double> uniform = UniformConstantRead(v, read);
  if (read) return uniform;
  sdk::TensorView t = v.ConstantData();
  if (!t || t.ElementCount() < 1) return std::nullopt;
  std::optional<double> first = ElementAt(t, 0);
  if (!first) return std::nullopt;
  for (int64_t i = 1; i < t.ElementCount(); ++i)
    if (ElementAt(t, static_cast<size_t>(i)) != first) return std::nullopt;
  return first;
}

RootOperands::RootOperands(const sdk::Node& root) {
  for (size_t i = 0; i < root.InputCount(); ++i)
    if (sdk::Value in = root.Input(i))
      if (sdk::Node p = in.Producer()) ops_.push_back(p.OpType());
}

bool RootOperands::MayMatch(const Rule& rule) const {
  // Each required op must make one of the inputs (MatchOp checks the producer's op type; which input is which is
  // left to the search): necessary, not sufficient.
  for (const std::string& op : rule.operand_ops)
    if (std::find(ops_.begin(), ops_.end(), op) == ops_.end()) return false;
  return true;
}

std::optional<Match> MatchRule(const Rule& rule, sdk::Node root, int64_t opset) {
  thread_local Match scratch;
  return Matcher(rule, opset, scratch).Run(root);
}

}  // namespace kiln::fusion
