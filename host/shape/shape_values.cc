// Shape values and the output dims they give: see shape_values.h.
#include "shape/shape_values.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "ir/graph.h"
#include "ir/node.h"
#include "ir/tensor.h"
#include "ir/value.h"
#include "shape/type_refine.h"

namespace kiln {
namespace {

using Elems = std::vector<std::optional<DimExpr>>;

std::shared_ptr<const ShapeData> Make(bool scalar, Elems elems) {
  if (elems.size() > ShapeData::kMaxElements || (scalar && elems.size() != 1)) return nullptr;
  auto d = std::make_shared<ShapeData>();
  d->scalar = scalar;
  d->elems = std::move(elems);
  return d;
}

std::shared_ptr<const ShapeData> FromInts(const std::vector<int64_t>& v, bool scalar) {
  Elems e;
  for (int64_t x : v) e.emplace_back(DimExpr(x));
  return Make(scalar, std::move(e));
}

std::shared_ptr<const ShapeData> FromTensor(const Tensor& t) {
  if (t.dims().size() > 1 || t.num_elements() > static_cast<int64_t>(ShapeData::kMaxElements)) return nullptr;
  std::vector<int64_t> v;
  switch (t.type()) {
    case DataType::kInt64:
      for (int64_t x : t.values<int64_t>()) v.push_back(x);
      break;
    case DataType::kInt32:
      for (int32_t x : t.values<int32_t>()) v.push_back(x);
      break;
    default: return nullptr;
  }
  if (static_cast<int64_t>(v.size()) != t.num_elements()) return nullptr;
  return FromInts(v, t.dims().empty());
}

// The constant ints of a shape value every element of which is known.
std::optional<std::vector<int64_t>> KnownInts(const std::shared_ptr<const ShapeData>& d) {
  if (!d) return std::nullopt;
  std::vector<int64_t> out;
  for (const auto& e : d->elems) {
    if (!e || !e->constant()) return std::nullopt;
    out.push_back(*e->constant());
  }
  return out;
}

bool IsIntegerType(int64_t onnx_type) {
  switch (static_cast<DataType>(onnx_type)) {
    case DataType::kInt8: case DataType::kInt16: case DataType::kInt32: case DataType::kInt64:
    case DataType::kUInt8: case DataType::kUInt16: case DataType::kUInt32: case DataType::kUInt64: return true;
    default: return false;
  }
}

const Shape* TensorShape(const Value* v) {
  if (v == nullptr || !v->type().is_tensor() || !v->type().shape) return nullptr;
  return &*v->type().shape;
}

// Python-style slice bounds as ONNX's Slice computes them, on a dimension of `n` elements.
std::vector<int64_t> SliceIndices(int64_t n, int64_t start, int64_t end, int64_t step) {
  if (start < 0) start += n;
  if (end < 0) end += n;
  std::vector<int64_t> out;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, n);
    end = std::clamp<int64_t>(end, 0, n);
    for (int64_t i = start; i < end; i += step) out.push_back(i);
  } else if (step < 0) {
    start = std::clamp<int64_t>(start, 0, n - 1);
    end = std::clamp<int64_t>(end, -1, n - 1);
    for (int64_t i = start; i > end; i += step) out.push_back(i);
  }
  return out;
}

using BinaryFn = std::optional<DimExpr> (*)(const DimExpr&, const DimExpr&);

std::optional<DimExpr> TruncDiv(const DimExpr& a, const DimExpr& b) {
  auto ac = a.constant(), bc = b.constant();
  if (ac && bc) return *bc == 0 ? std::nullopt : std::optional<DimExpr>(DimExpr(*ac / *bc));
  if (bc && *bc > 0) return FloorDiv(a, b);  // dims are not negative: floor is truncation
  return std::nullopt;
}
std::optional<DimExpr> MinFn(const DimExpr& a, const DimExpr& b) { return Min(a, b); }
std::optional<DimExpr> MaxFn(const DimExpr& a, const DimExpr& b) { return Max(a, b); }

// Elementwise with ONNX broadcasting between scalars, one-element and equal-length 1-D values.
std::shared_ptr<const ShapeData> Elementwise(const std::shared_ptr<const ShapeData>& a,
                                             const std::shared_ptr<const ShapeData>& b, BinaryFn fn) {
  if (!a || !b) return nullptr;
  const size_t n = std::max(a->elems.size(), b->elems.size());
  if ((a->elems.size() != n && a->elems.size() != 1) || (b->elems.size() != n && b->elems.size() != 1)) return nullptr;
  Elems out;
  for (size_t i = 0; i < n; ++i) {
    const auto& x = a->elems[a->elems.size() == 1 ? 0 : i];
    const auto& y = b->elems[b->elems.size() == 1 ? 0 : i];
    out.push_back(x && y ? fn(*x, *y) : std::nullopt);
  }
  return Make(a->scalar && b->scalar, std::move(out));
}

// A Shape-like op's input attribute or (from the given opset on) input: its known ints.
std::optional<std::vector<int64_t>> IntsInput(const Node& n, size_t input) {
  return KnownInts(ShapeValueOf(n.input(input)));
}

std::shared_ptr<const ShapeData> SliceValue(const Node& n) {
  auto data = ShapeValueOf(n.input(0));
  if (!data || data->scalar) return nullptr;
  std::vector<int64_t> starts, ends, axes, steps;
  if (n.num_inputs() >= 3) {
    auto s = IntsInput(n, 1), e = IntsInput(n, 2);
    if (!s || !e) return nullptr;
    starts = *s, ends = *e;
    if (n.input(3)) {
      auto a = IntsInput(n, 3);
      if (!a) return nullptr;
      axes = *a;
    }
    if (n.input(4)) {
      auto st = IntsInput(n, 4);
      if (!st) return nullptr;
      steps = *st;
    }
  } else {
    starts = n.GetInts("starts"), ends = n.GetInts("ends"), axes = n.GetInts("axes");
  }
  if (starts.size() != 1 || ends.size() != 1) return nullptr;
  if (!axes.empty() && (axes.size() != 1 || (axes[0] != 0 && axes[0] != -1))) return nullptr;
  int64_t step = steps.empty() ? 1 : steps[0];
  if (step == 0 || steps.size() > 1) return nullptr;
  Elems out;
  for (int64_t i : SliceIndices(static_cast<int64_t>(data->elems.size()), starts[0], ends[0], step))
    out.push_back(data->elems[static_cast<size_t>(i)]);
  return Make(false, std::move(out));
}

std::shared_ptr<const ShapeData> GatherValue(const Node& n) {
  auto data = ShapeValueOf(n.input(0));
  auto idx = ShapeValueOf(n.input(1));
  auto ints = KnownInts(idx);
  int64_t axis = n.GetInt("axis", 0);
  if (!data || data->scalar || !ints || (axis != 0 && axis != -1)) return nullptr;
  const auto size = static_cast<int64_t>(data->elems.size());
  Elems out;
  for (int64_t k : *ints) {
    if (k < 0) k += size;
    if (k < 0 || k >= size) return nullptr;
    out.push_back(data->elems[static_cast<size_t>(k)]);
  }
  return Make(idx->scalar, std::move(out));
}

std::shared_ptr<const ShapeData> ShapeOfInput(const Node& n) {
  const Shape* s = TensorShape(n.input(0));
  if (s == nullptr) return nullptr;
  const auto r = static_cast<int64_t>(s->rank());
  auto clamp = [&](int64_t a) { return std::clamp<int64_t>(a < 0 ? a + r : a, 0, r); };
  const int64_t start = clamp(n.GetInt("start", 0)), end = clamp(n.GetInt("end", r));
  Elems out;
  for (int64_t i = start; i < end; ++i) out.push_back(ExprOfDim(s->dims[static_cast<size_t>(i)]));
  return Make(false, std::move(out));
}

std::shared_ptr<const ShapeData> SizeOfInput(const Node& n) {
  const Shape* s = TensorShape(n.input(0));
  if (s == nullptr) return nullptr;
  DimExpr product(1);
  for (const Dim& d : s->dims) {
    auto e = ExprOfDim(d);
    auto p = e ? Mul(product, *e) : std::nullopt;
    if (!p) return nullptr;
    product = *p;
  }
  return Make(true, {product});
}

std::shared_ptr<const ShapeData> ReshapeValue(const Node& n) {
  auto data = ShapeValueOf(n.input(0));
  auto target = KnownInts(ShapeValueOf(n.input(1)));
  if (!data || !target) return nullptr;
  if (target->empty() && data->elems.size() == 1) return Make(true, data->elems);
  if (target->size() == 1 && ((*target)[0] == -1 || (*target)[0] == static_cast<int64_t>(data->elems.size())))
    return Make(false, data->elems);
  return nullptr;
}

std::optional<DimExpr> Product(const Shape& s, size_t from, size_t to) {
  DimExpr p(1);
  for (size_t i = from; i < to; ++i) {
    auto e = ExprOfDim(s.dims[i]);
    auto q = e ? Mul(p, *e) : std::nullopt;
    if (!q) return std::nullopt;
    p = *q;
  }
  return p;
}

// Reshape's output dims from its input's and the target's: 0 copies the input's dim (without allowzero), -1 is
// what is left (exact when every other dim is known as an expression).
std::optional<Shape> ReshapeResult(const Shape& in, const ShapeData& target, bool allowzero) {
  Shape out;
  int minus_one = -1;
  for (size_t i = 0; i < target.elems.size(); ++i) {
    const auto& e = target.elems[i];
    if (e && e->constant() && *e->constant() == 0 && !allowzero) {
      if (i >= in.rank()) return std::nullopt;
      out.dims.push_back(in.dims[i]);
    } else if (e && e->constant() && *e->constant() == -1) {
      if (minus_one >= 0) return std::nullopt;
      minus_one = static_cast<int>(i);
      out.dims.push_back(Dim{});
    } else if (e && e->constant() && *e->constant() < -1) {
      return std::nullopt;
    } else {
      out.dims.push_back(DimOfExpr(e));
    }
  }
  if (minus_one < 0) return out;
  auto total = Product(in, 0, in.rank());
  std::optional<DimExpr> rest(DimExpr(1));
  for (size_t i = 0; i < out.dims.size() && rest; ++i) {
    if (static_cast<int>(i) == minus_one) continue;
    auto e = ExprOfDim(out.dims[i]);
    rest = e ? Mul(*rest, *e) : std::nullopt;
  }
  if (total && rest && !(rest->constant() && *rest->constant() == 0))
    if (auto q = FloorDiv(*total, *rest)) out.dims[static_cast<size_t>(minus_one)] = DimOfExpr(q);
  return out;
}

void Offer(std::vector<Type>& outputs, size_t i, const Node& n, DataType elem, Shape shape) {
  if (i >= outputs.size()) return;
  Type got = Type::Tensor(outputs[i].elem != DataType::kUndefined ? outputs[i].elem : elem, std::move(shape));
  if (got.elem == DataType::kUndefined) got.elem_declared = false;
  RefineType(outputs[i], got);
  (void)n;
}

DataType ElemOf(const Value* v) { return v ? v->type().elem : DataType::kUndefined; }

}  // namespace

bool ShapeData::fully_known() const {
  return std::all_of(elems.begin(), elems.end(), [](const auto& e) { return e && e->constant(); });
}

bool ShapeData::operator==(const ShapeData& o) const { return scalar == o.scalar && elems == o.elems; }

std::optional<DimExpr> ExprOfDim(const Dim& d) {
  if (d.is_known()) return DimExpr(*d.value);
  if (!d.is_symbol()) return std::nullopt;
  static std::unordered_map<std::string, DimExpr> parsed;  // dim_param texts repeat across a graph
  auto it = parsed.find(d.symbol());
  if (it == parsed.end()) {
    if (parsed.size() > 100000) parsed.clear();
    it = parsed.emplace(d.symbol(), DimExpr::FromDimParam(d.symbol())).first;
  }
  return it->second;
}

Dim DimOfExpr(const std::optional<DimExpr>& e) {
  if (!e) return Dim{};
  if (auto c = e->constant()) return Dim::Known(*c);
  if (auto s = e->symbol()) return Dim::Symbol(*s);
  return Dim::Symbol(e->ToString());
}

std::shared_ptr<const ShapeData> ShapeValueOf(const Value* v) {
  if (v == nullptr) return nullptr;
  if (v->shape_data()) return v->shape_data();
  if (v->initializer() && !v->is_graph_input()) return FromTensor(*v->initializer());
  const Node* p = v->producer();
  if (p == nullptr || p->op_type() != "Constant" || !p->domain().empty()) return nullptr;
  if (const Attribute* a = p->FindAttribute("value"); a && a->t) return FromTensor(*a->t);
  if (const Attribute* a = p->FindAttribute("value_ints")) return FromInts(a->ints, false);
  if (const Attribute* a = p->FindAttribute("value_int"); a && a->i) return FromInts({*a->i}, true);
  return nullptr;
}

std::shared_ptr<const ShapeData> PropagateShapeValue(const Node& n) {
  if (!n.domain().empty() || n.num_outputs() < 1 || n.output(0) == nullptr) return nullptr;
  const std::string& op = n.op_type();
  auto in = [&](size_t i) { return ShapeValueOf(n.input(i)); };
  if (op == "Shape") return ShapeOfInput(n);
  if (op == "Size") return SizeOfInput(n);
  if (op == "Gather") return GatherValue(n);
  if (op == "Slice") return SliceValue(n);
  if (op == "Identity") return in(0);
  if (op == "Cast") return IsIntegerType(n.GetInt("to", 0)) ? in(0) : nullptr;
  if (op == "Reshape") return ReshapeValue(n);
  if (op == "Unsqueeze") {
    auto d = in(0);
    return d && d->scalar ? Make(false, d->elems) : nullptr;
  }
  if (op == "Squeeze") {
    auto d = in(0);
    return d && !d->scalar && d->elems.size() == 1 ? Make(true, d->elems) : nullptr;
  }
  if (op == "Concat") {
    const int64_t axis = n.GetInt("axis", 0);
    if (axis != 0 && axis != -1) return nullptr;
    Elems out;
    for (Value* v : n.inputs()) {
      auto d = ShapeValueOf(v);
      if (!d || d->scalar) return nullptr;
      out.insert(out.end(), d->elems.begin(), d->elems.end());
    }
    return Make(false, std::move(out));
  }
  if (op == "Neg") {
    auto d = in(0);
    return d ? Elementwise(d, FromInts({-1}, true), Mul) : nullptr;
  }
  static const std::unordered_map<std::string, BinaryFn> kBinary = {
      {"Add", Add}, {"Sub", Sub}, {"Mul", Mul}, {"Div", TruncDiv}, {"Min", MinFn}, {"Max", MaxFn}};
  if (op == "Mod") return n.GetInt("fmod", 0) == 0 ? Elementwise(in(0), in(1), Mod) : nullptr;
  auto it = kBinary.find(op);
  if (it == kBinary.end() || n.num_inputs() == 0) return nullptr;
  auto acc = in(0);
  for (size_t i = 1; i < n.num_inputs() && acc; ++i) acc = Elementwise(acc, in(i), it->second);
  return n.num_inputs() == 1 && op != "Min" && op != "Max" ? nullptr : acc;
}

void RefineOutputs(const Node& n, std::vector<Type>& outputs) {
  if (!n.domain().empty() || outputs.empty()) return;
  const std::string& op = n.op_type();
  const Shape* in0 = TensorShape(n.input(0));
  if (op == "Reshape") {
    auto target = ShapeValueOf(n.input(1));
    if (in0 && target && !target->scalar)
      if (auto s = ReshapeResult(*in0, *target, n.GetInt("allowzero", 0) != 0))
        Offer(outputs, 0, n, ElemOf(n.input(0)), std::move(*s));
  } else if (op == "ConstantOfShape") {
    auto shape = ShapeValueOf(n.input(0));
    if (shape && !shape->scalar) {
      Shape s;
      for (const auto& e : shape->elems) s.dims.push_back(DimOfExpr(e));
      const Attribute* value = n.FindAttribute("value");
      Offer(outputs, 0, n, value && value->t ? value->t->type() : DataType::kFloat, std::move(s));
    }
  } else if (op == "Expand") {
    auto shape = ShapeValueOf(n.input(1));
    if (in0 && shape && !shape->scalar) {
      const size_t rank = std::max(in0->rank(), shape->elems.size());
      Shape s;
      for (size_t i = 0; i < rank; ++i) {
        const size_t from_end = rank - i;
        std::optional<DimExpr> a = from_end <= in0->rank() ? ExprOfDim(in0->dims[in0->rank() - from_end])
                                                           : std::optional<DimExpr>(DimExpr(1));
        std::optional<DimExpr> b = from_end <= shape->elems.size() ? shape->elems[shape->elems.size() - from_end]
                                                                   : std::optional<DimExpr>(DimExpr(1));
        auto is_one = [](const std::optional<DimExpr>& e) { return e && e->constant() && *e->constant() == 1; };
        if (is_one(b)) s.dims.push_back(DimOfExpr(a));
        else if (is_one(a) || (a && b && *a == *b)) s.dims.push_back(DimOfExpr(b));
        else if (b && b->constant()) s.dims.push_back(DimOfExpr(b));  // a must broadcast to it
        else s.dims.push_back(Dim{});
      }
      Offer(outputs, 0, n, ElemOf(n.input(0)), std::move(s));
    }
  } else if (op == "Tile") {
    auto repeats = ShapeValueOf(n.input(1));
    if (in0 && repeats && !repeats->scalar && repeats->elems.size() == in0->rank()) {
      Shape s;
      for (size_t i = 0; i < in0->rank(); ++i) {
        auto d = ExprOfDim(in0->dims[i]);
        const auto& r = repeats->elems[i];
        s.dims.push_back(DimOfExpr(d && r ? Mul(*d, *r) : std::nullopt));
      }
      Offer(outputs, 0, n, ElemOf(n.input(0)), std::move(s));
    }
  } else if (op == "Concat") {
    // ONNX adds the axis dims only when they are all numbers.
    if (in0 == nullptr) return;
    const auto rank = static_cast<int64_t>(in0->rank());
    int64_t axis = n.GetInt("axis", 0);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return;
    std::optional<DimExpr> sum(DimExpr(0));
    for (Value* v : n.inputs()) {
      const Shape* s = TensorShape(v);
      if (s == nullptr || s->rank() != in0->rank()) return;
      auto e = ExprOfDim(s->dims[static_cast<size_t>(axis)]);
      sum = sum && e ? Add(*sum, *e) : std::nullopt;
    }
    Shape s = *in0;
    s.dims[static_cast<size_t>(axis)] = DimOfExpr(sum);
    for (size_t i = 0; i < s.rank(); ++i)
      if (static_cast<int64_t>(i) != axis) s.dims[i] = Dim{};  // left to ONNX's own result
    Offer(outputs, 0, n, ElemOf(n.input(0)), std::move(s));
  } else if (op == "Flatten") {
    if (in0 == nullptr) return;
    int64_t axis = n.GetInt("axis", 1);
    if (axis < 0) axis += static_cast<int64_t>(in0->rank());
    if (axis < 0 || axis > static_cast<int64_t>(in0->rank())) return;
    Shape s;
    s.dims.push_back(DimOfExpr(Product(*in0, 0, static_cast<size_t>(axis))));
    s.dims.push_back(DimOfExpr(Product(*in0, static_cast<size_t>(axis), in0->rank())));
    Offer(outputs, 0, n, ElemOf(n.input(0)), std::move(s));
  }
}

}  // namespace kiln
