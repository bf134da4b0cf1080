#include "rewrite.h"

#include <cmath>
#include <cstring>
#include <unordered_set>

namespace kiln::fusion {
namespace {

// Constants up to this size are copied into a fused body (as attribute references: the body stays shared).
constexpr uint64_t kEmbedConstantBytes = 16;

std::string BaseName(const sdk::Node& n) { return std::string(n.Name().empty() ? n.OpType() : n.Name()); }

// A constant computed element-wise from constants (the $ functions of a rewrite), as doubles.
struct ConstValue {
  int32_t elem_type = KILN_ELEM_FLOAT;
  std::vector<int64_t> dims;
  std::vector<double> values;
};

std::optional<ConstValue> ReadConstant(const sdk::Value& v) {
  if (!v || !v.IsConstant()) return std::nullopt;
  sdk::TensorView t = v.ConstantData();
  if (t.ElemType() != KILN_ELEM_FLOAT && t.ElemType() != KILN_ELEM_DOUBLE) return std::nullopt;
  ConstValue c;
  c.elem_type = t.ElemType();
  c.dims.assign(t.Dims().begin(), t.Dims().end());
  if (t.ElemType() == KILN_ELEM_FLOAT)
    for (float f : t.Values<float>()) c.values.push_back(f);
  else
    for (double d : t.Values<double>()) c.values.push_back(d);
  return c;
}

// Element-wise with one side a scalar, or both of one shape.
std::optional<ConstValue> Combine(const ConstValue& a, const ConstValue& b, double (*f)(double, double)) {
  const ConstValue* shape = a.values.size() >= b.values.size() ? &a : &b;
  if (a.values.size() != b.values.size() && a.values.size() != 1 && b.values.size() != 1) return std::nullopt;
  if (a.values.size() == b.values.size() && a.dims != b.dims) return std::nullopt;
  ConstValue r;
  r.elem_type = a.elem_type;
  r.dims = shape->dims;
  for (size_t i = 0; i < shape->values.size(); ++i)
    r.values.push_back(f(a.values[a.values.size() == 1 ? 0 : i], b.values[b.values.size() == 1 ? 0 : i]));
  return r;
}

class Builder {
 public:
  Builder(const Match& m, sdk::Graph g) : m_(m), g_(g) {}

  // Dry run (g_ null) checks what it can without building.
  std::string Check(const Replacement& r) {
    dry_ = true;
    try {
      Build(r);
    } catch (const sdk::Error& e) {
      return e.what();
    }
    return "";
  }

  sdk::Value Build(const Replacement& r) {
    switch (r.kind) {
      case Replacement::Kind::kVar: {
        sdk::Value v = m_.ValueOf(r.var);
        if (!v) throw sdk::Error("'" + r.var + "' is not bound");
        return v;
      }
      case Replacement::Kind::kFunction: return Constant(r);
      case Replacement::Kind::kOp: break;
    }
    std::vector<sdk::Value> inputs;
    for (const auto& a : r.args) inputs.push_back(Build(*a));
    if (dry_) {
      for (const auto& a : r.attrs) AttrCheck(a);
      return m_.root.Output(0);  // stands for the new node's output in a dry run
    }
    sdk::Node n = g_.CreateNode(r.op_type, inputs, 1, r.domain, BaseName(m_.root) + "/" + r.op_type);
    for (const auto& a : r.attrs) SetAttr(n, a);
    return n.Output(0);
  }

 private:
  ExprContext Context() const {
    ExprContext c;
    c.value = [this](const std::string& v) { return UniformConstant(m_.ValueOf(v)); };
    c.rank = [this](const std::string& v) -> std::optional<double> {
      sdk::Value x = m_.ValueOf(v);
      return x && x.Rank() >= 0 ? std::optional<double>(static_cast<double>(x.Rank())) : std::nullopt;
    };
    c.dim = [this](const std::string& v, int64_t i) -> std::optional<double> {
      sdk::Value x = m_.ValueOf(v);
      if (!x || x.Rank() < 0) return std::nullopt;
      int64_t r = x.Rank();
      if (i < -r || i >= r) return std::nullopt;
      int64_t d = x.Dims()[static_cast<size_t>(i < 0 ? i + r : i)];
      return d < 0 ? std::nullopt : std::optional<double>(static_cast<double>(d));
    };
    return c;
  }

  double EvalOrThrow(const Replacement::Attr& a) const {
    std::optional<double> v = a.expr->Eval(Context());
    if (!v) throw sdk::Error("attribute '" + a.name + "': " + a.expr->text() + " has no value here");
    return *v;
  }

  void AttrCheck(const Replacement::Attr& a) const {
    if (a.expr) EvalOrThrow(a);
    if (a.kind == Replacement::Attr::Kind::kCopy) {
      sdk::Node from = m_.Label(a.copy_label);
      if (!from) throw sdk::Error("no node labelled '" + a.copy_label + "'");
    }
  }

  void SetAttr(const sdk::Node& n, const Replacement::Attr& a) const {
    using K = Replacement::Attr::Kind;
    switch (a.kind) {
      case K::kFloatExpr: n.SetFloat(a.name, static_cast<float>(EvalOrThrow(a))); return;
      case K::kIntExpr: n.SetInt(a.name, static_cast<int64_t>(std::llround(EvalOrThrow(a)))); return;
      case K::kCopy: {
        sdk::Attribute from = m_.Label(a.copy_label).Attr(a.copy_name);
        if (!from) return;  // absent on the matched node: absent here too (the op's default)
        switch (from.Type()) {
          case KILN_ATTR_INT: n.SetInt(a.name, from.Int()); return;
          case KILN_ATTR_FLOAT: n.SetFloat(a.name, from.Float()); return;
          case KILN_ATTR_STRING: n.SetString(a.name, from.String()); return;
          case KILN_ATTR_INTS: n.SetInts(a.name, from.Ints()); return;
          case KILN_ATTR_FLOATS: n.SetFloats(a.name, from.Floats()); return;
          case KILN_ATTR_TENSOR: n.SetTensor(a.name, from.Tensor()); return;
          default: throw sdk::Error("attribute '" + a.copy_name + "' cannot be copied");
        }
      }
      case K::kLiteral: {
        const AttrValue& v = a.literal;
        if (v.kind == AttrValue::Kind::kString) {
          n.SetString(a.name, v.text);
        } else if (v.kind == AttrValue::Kind::kNumber) {
          if (a.literal_is_float) n.SetFloat(a.name, static_cast<float>(v.number));
          else n.SetInt(a.name, static_cast<int64_t>(v.number));
        } else if (a.literal_is_float) {
          std::vector<float> f(v.list.begin(), v.list.end());
          n.SetFloats(a.name, f);
        } else {
          std::vector<int64_t> i;
          for (double d : v.list) i.push_back(static_cast<int64_t>(d));
          n.SetInts(a.name, i);
        }
        return;
      }
    }
  }

  ConstValue ConstantArg(const Replacement& r) {
    if (r.kind == Replacement::Kind::kVar) {
      std::optional<ConstValue> c = ReadConstant(m_.ValueOf(r.var));
      if (!c) throw sdk::Error("'" + r.var + "' is not a float or double constant");
      return *c;
    }
    if (r.kind == Replacement::Kind::kFunction) return Compute(r);
    throw sdk::Error("$" + std::string("functions take constants, not ops"));
  }

  ConstValue Compute(const Replacement& r) {
    std::vector<ConstValue> args;
    for (const auto& a : r.args) args.push_back(ConstantArg(*a));
    auto unary = [&](double (*f)(double)) {
      if (args.size() != 1) throw sdk::Error("$" + r.function + " takes one argument");
      ConstValue c = args[0];
      for (double& v : c.values) v = f(v);
      return c;
    };
    auto binary = [&](double (*f)(double, double)) {
      if (args.size() != 2) throw sdk::Error("$" + r.function + " takes two arguments");
      std::optional<ConstValue> c = Combine(args[0], args[1], f);
      if (!c) throw sdk::Error("$" + r.function + ": the constants' shapes do not combine");
      return *c;
    };
    if (r.function == "recip") {
      ConstValue c = unary([](double x) { return 1.0 / x; });
      for (double v : c.values)
        if (!std::isfinite(v)) throw sdk::Error("$recip of a zero");
      return c;
    }
    if (r.function == "neg") return unary([](double x) { return -x; });
    if (r.function == "mul") return binary([](double a, double b) { return a * b; });
    if (r.function == "add") return binary([](double a, double b) { return a + b; });
    if (r.function == "sub") return binary([](double a, double b) { return a - b; });
    return binary([](double a, double b) { return a / b; });
  }

  sdk::Value Constant(const Replacement& r) {
    ConstValue c = Compute(r);
    if (dry_) return m_.root.Output(0);
    if (c.elem_type == KILN_ELEM_FLOAT) {
      std::vector<float> f(c.values.begin(), c.values.end());
      return g_.CreateConstant<float>(c.dims, f, BaseName(m_.root) + "/const");
    }
    return g_.CreateConstant<double>(c.dims, c.values, BaseName(m_.root) + "/const");
  }

  const Match& m_;
  sdk::Graph g_;
  bool dry_ = false;
};

}  // namespace

std::vector<sdk::Value> FusedOutputs(const Match& m) {
  std::vector<sdk::Value> outs{m.root.Output(0)};
  std::unordered_set<KilnNode*> in_group;
  for (const sdk::Node& n : m.nodes) in_group.insert(n.raw());
  for (const std::string& name : m.rule->extra_outputs) {
    sdk::Value v = m.ValueOf(name);
    if (!v || v == outs[0]) continue;
    bool outside = v.IsGraphOutput();
    for (const sdk::Use& u : v.Consumers()) outside = outside || !in_group.count(u.node.raw());
    if (outside) outs.push_back(v);
  }
  return outs;
}

sdk::Node ApplyFuse(const Match& m, sdk::Graph graph) {
  sdk::OutlineSpec spec;
  spec.domain = std::string(kFusedDomain);
  spec.name = m.rule->fuse_name;
  spec.outputs = FusedOutputs(m);
  spec.flags = KILN_OUTLINE_REUSE_BODY | KILN_OUTLINE_ATTRIBUTES_BY_REFERENCE;
  // A group whose only exit is its root is convex by construction (legality.h); else the host checks.
  if (spec.outputs.size() == 1) spec.flags |= KILN_OUTLINE_ASSUME_CONVEX;
  spec.embed_constant_max_bytes = kEmbedConstantBytes;
  spec.call_name = BaseName(m.root);
  return sdk::Outline(graph, m.nodes, spec).call;
}

std::string CheckRewrite(const Match& m) {
  const Replacement& r = *m.rule->rewrite;
  sdk::Value root = m.root.Output(0);
  if (r.kind == Replacement::Kind::kVar) {
    sdk::Value v = m.ValueOf(r.var);
    if (v && root.IsGraphOutput() && (v.IsGraphInput() || v.IsGraphOutput() || v.IsConstant()))
      return "the result is a graph output and '" + std::string(v.Name()) + "' is an input, an output or a constant";
  }
  return Builder(m, sdk::Graph()).Check(r);
}

void ApplyRewrite(const Match& m, sdk::Graph graph) {
  sdk::Value root = m.root.Output(0);
  std::optional<sdk::TensorShape> shape = root.Shape();
  const int32_t elem = root.ElemType();
  sdk::Value result = Builder(m, graph).Build(*m.rule->rewrite);
  if (result.Producer() && result.Producer().Name().find(BaseName(m.root) + "/") == 0 && elem != 0)
    result.SetTensorType(elem, shape);  // the rewrite computes the same thing: the root's type is its type
  root.ReplaceAllUsesWith(result);
  // The matched nodes nothing reads any more go, readers first.
  for (bool again = true; again;) {
    again = false;
    for (const sdk::Node& n : m.nodes) {
      if (n.IsDeleted()) continue;
      bool used = false;
      for (const sdk::Value& out : n.Outputs()) used = used || (out && (out.ConsumerCount() > 0 || out.IsGraphOutput()));
      if (used) continue;
      n.Delete();
      again = true;
    }
  }
}

}  // namespace kiln::fusion
