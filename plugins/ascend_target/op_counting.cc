// FLOP, byte and reduction-row counting (the rules are in op_counting.h).
#include "op_counting.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace kiln::ascend {
namespace {

std::string Join(const std::set<std::string>& s) {
  std::string out;
  for (const std::string& x : s) out += (out.empty() ? "" : ", ") + x;
  return out;
}

std::string FormatNumber(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

double Product(const std::vector<double>& d, size_t from, size_t to) {
  double p = 1;
  for (size_t i = from; i < to && i < d.size(); ++i) p *= d[i];
  return p;
}

// axis in [-rank, rank) to [0, rank); nullopt when out of range.
std::optional<size_t> NormalizeAxis(int64_t axis, size_t rank) {
  int64_t r = static_cast<int64_t>(rank);
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r) return std::nullopt;
  return static_cast<size_t>(axis);
}

// Where an op's data, weight and bias inputs sit.
struct ConvInputs {
  size_t x = 0, w = 1, b = 2;
  bool has_bias_slot = true;
};
ConvInputs ConvInputsOf(std::string_view op) {
  if (op == "QLinearConv") return {0, 3, 8, true};
  if (op == "ConvInteger") return {0, 1, 0, false};
  return {};
}

}  // namespace

std::string Notes::Text(double symbolic_dim) const {
  std::string out;
  auto add = [&](const std::string& s) { out += (out.empty() ? "" : "; ") + s; };
  std::string n = FormatNumber(symbolic_dim);
  if (!symbols.empty()) add("symbolic dims taken as " + n + " (assumptions.symbolic_dim): " + Join(symbols));
  if (!unknown_shapes.empty()) add("shapes unknown, counted as " + n + " element(s): " + Join(unknown_shapes));
  if (!untyped.empty()) add("element types unknown, counted as 0 bytes: " + Join(untyped));
  for (const std::string& o : other) add(o);
  return out;
}

double Factor(const NumberTable& factors, std::string_view op_type) {
  if (auto it = factors.values.find(op_type); it != factors.values.end()) return it->second;
  if (auto it = factors.values.find("default"); it != factors.values.end()) return it->second;
  return 1;
}

bool Counter::IsStatic(const TensorInfo& t) {
  if (!t.dims) return false;
  return std::all_of(t.dims->begin(), t.dims->end(), [](int64_t d) { return d >= 0; });
}

std::vector<double> Counter::Dims(const TensorInfo& t) const {
  if (!t.dims) {
    if (notes_) notes_->unknown_shapes.insert(t.id);
    return {symbolic_dim_};
  }
  std::vector<double> out;
  out.reserve(t.dims->size());
  for (size_t i = 0; i < t.dims->size(); ++i) {
    int64_t d = (*t.dims)[i];
    if (d >= 0) {
      out.push_back(static_cast<double>(d));
      continue;
    }
    out.push_back(symbolic_dim_);
    if (notes_) {
      std::string sym = i < t.symbols.size() ? t.symbols[i] : "";
      notes_->symbols.insert(sym.empty() ? t.id + "[" + std::to_string(i) + "]" : sym);
    }
  }
  return out;
}

double Counter::Elements(const TensorInfo& t) const {
  std::vector<double> d = Dims(t);
  return Product(d, 0, d.size());
}

double Counter::Bytes(const TensorInfo& t) const {
  const int size = ElemTypeBytes(t.elem_type);
  if (size == 0 && notes_) notes_->untyped.insert(t.id);
  return Elements(t) * size;
}

double Counter::Bytes(const OpNode& n, CostRule rule) const {
  if (rule == CostRule::kView || rule == CostRule::kShape || rule == CostRule::kConstant) return 0;
  std::set<std::string> seen;
  double bytes = 0;
  for (const auto* list : {&n.inputs, &n.outputs})
    for (const auto& t : *list)
      if (t && seen.insert(t->id).second) bytes += Bytes(*t);
  return bytes;
}

double Counter::Flops(const OpNode& n, CostRule rule, const NumberTable& factors) const {
  const double f = Factor(factors, n.op_type);
  switch (rule) {
    case CostRule::kConv: return ConvFlops(n, false);
    case CostRule::kConvTranspose: return ConvFlops(n, true);
    case CostRule::kMatMul: return MatMulFlops(n);
    case CostRule::kGemm: return GemmFlops(n);
    case CostRule::kElementwise: {
      double most = 0;
      for (const auto& o : n.outputs)
        if (o) most = std::max(most, Elements(*o));
      return most * f;
    }
    case CostRule::kReduction:
    case CostRule::kNorm:
    case CostRule::kSoftmax:
    case CostRule::kInputElements: {
      const TensorInfo* x = n.Input(0);
      return x ? Elements(*x) * f : 0;
    }
    case CostRule::kPooling: return PoolFlops(n, f);
    case CostRule::kDataMovement:
    case CostRule::kView:
    case CostRule::kShape:
    case CostRule::kConstant: return 0;
  }
  return 0;
}

double Counter::ConvFlops(const OpNode& n, bool transpose) const {
  ConvInputs at = ConvInputsOf(n.op_type);
  const TensorInfo* x = n.Input(at.x);
  const TensorInfo* w = n.Input(at.w);
  const TensorInfo* y = n.Output(0);
  if (!x || !w) {
    if (notes_) notes_->other.insert(n.op_type + " '" + n.name + "' lacks its data or weight input: 0 FLOPs");
    return 0;
  }
  std::vector<double> xd = Dims(*x), wd = Dims(*w);
  if (xd.size() < 3 || wd.size() < 3 || xd.size() != wd.size()) {
    if (notes_) notes_->other.insert(n.op_type + " '" + n.name + "': shapes too short for a convolution, 0 FLOPs");
    return 0;
  }
  const size_t spatial = xd.size() - 2;
  const double kernel = Product(wd, 2, wd.size());
  const double batch = xd[0];
  const double group = static_cast<double>(std::max<int64_t>(1, n.Int("group", 1)));
  // Output spatial sizes: from y when its rank is right, else from the attributes.
  std::vector<double> out_spatial;
  if (y && y->dims && y->dims->size() == xd.size()) {
    std::vector<double> yd = Dims(*y);
    out_spatial.assign(yd.begin() + 2, yd.end());
  } else {
    std::vector<int64_t> strides = n.Ints("strides").value_or(std::vector<int64_t>(spatial, 1));
    std::vector<int64_t> dil = n.Ints("dilations").value_or(std::vector<int64_t>(spatial, 1));
    std::vector<int64_t> pads = n.Ints("pads").value_or(std::vector<int64_t>(2 * spatial, 0));
    std::vector<int64_t> out_pad = n.Ints("output_padding").value_or(std::vector<int64_t>(spatial, 0));
    std::string auto_pad = n.Str("auto_pad", "NOTSET");
    for (size_t i = 0; i < spatial; ++i) {
      double in = xd[2 + i], k = wd[2 + i];
      double s = i < strides.size() ? static_cast<double>(strides[i]) : 1;
      double dl = i < dil.size() ? static_cast<double>(dil[i]) : 1;
      double p = (i < pads.size() ? pads[i] : 0) + (spatial + i < pads.size() ? pads[spatial + i] : 0);
      double o;
      if (transpose) {
        o = (in - 1) * s + (k - 1) * dl + 1 - p + (i < out_pad.size() ? out_pad[i] : 0);
        if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") o = in * s;
      } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
        o = std::ceil(in / s);
      } else {
        if (auto_pad == "VALID") p = 0;
        o = std::floor((in + p - dl * (k - 1) - 1) / s) + 1;
      }
      out_spatial.push_back(std::max(0.0, o));
    }
  }
  const double out_points = Product(out_spatial, 0, out_spatial.size());
  double macs, out_channels;
  if (transpose) {
    // W: [C, M/group, k...]; each input point scatters to M/group * kernel outputs.
    const double in_points = Product(xd, 2, xd.size());
    macs = batch * wd[0] * in_points * wd[1] * kernel;
    out_channels = wd[1] * group;
  } else {
    // W: [M, C/group, k...].
    macs = batch * wd[0] * out_points * wd[1] * kernel;
    out_channels = wd[0];
  }
  double flops = 2 * macs;
  if (at.has_bias_slot && n.Input(at.b)) flops += batch * out_channels * out_points;
  return flops;
}

double Counter::MatMulFlops(const OpNode& n) const {
  const size_t b_at = n.op_type == "QLinearMatMul" ? 3 : 1;
  const TensorInfo* a = n.Input(0);
  const TensorInfo* b = n.Input(b_at);
  if (!a || !b) return 0;
  std::vector<double> ad = Dims(*a), bd = Dims(*b);
  if (ad.empty() || bd.empty()) return 0;
  if (ad.size() == 1) ad.insert(ad.begin(), 1);
  if (bd.size() == 1) bd.push_back(1);
  const double m = ad[ad.size() - 2], k = ad.back(), nn = bd.back();
  // Broadcast batch dimensions, aligned from the right.
  std::vector<double> ab(ad.begin(), ad.end() - 2), bb(bd.begin(), bd.end() - 2);
  double batch = 1;
  const size_t rank = std::max(ab.size(), bb.size());
  for (size_t i = 0; i < rank; ++i) {
    double x = i < ab.size() ? ab[ab.size() - 1 - i] : 1;
    double y = i < bb.size() ? bb[bb.size() - 1 - i] : 1;
    batch *= std::max(x, y);
  }
  return 2 * batch * m * nn * k;
}

double Counter::GemmFlops(const OpNode& n) const {
  const TensorInfo* a = n.Input(0);
  const TensorInfo* b = n.Input(1);
  if (!a || !b) return 0;
  std::vector<double> ad = Dims(*a), bd = Dims(*b);
  if (ad.size() != 2 || bd.size() != 2) return 0;
  const bool ta = n.Int("transA", 0) != 0, tb = n.Int("transB", 0) != 0;
  const double m = ta ? ad[1] : ad[0], k = ta ? ad[0] : ad[1], nn = tb ? bd[0] : bd[1];
  double flops = 2 * m * nn * k;
  if (n.Float("alpha", 1.0) != 1.0) flops += m * nn;
  if (n.Input(2)) {
    flops += m * nn;
    if (n.Float("beta", 1.0) != 1.0) flops += m * nn;
  }
  return flops;
}

double Counter::PoolFlops(const OpNode& n, double factor) const {
  const TensorInfo* x = n.Input(0);
  if (!x) return 0;
  if (n.op_type.rfind("Global", 0) == 0) return Elements(*x) * factor;
  std::vector<int64_t> kernel = n.Ints("kernel_shape").value_or(std::vector<int64_t>{});
  double window = 1;
  for (int64_t k : kernel) window *= static_cast<double>(k);
  double out;
  if (const TensorInfo* y = n.Output(0)) {
    out = Elements(*y);
  } else {
    double stride = 1;
    for (int64_t s : n.Ints("strides").value_or(std::vector<int64_t>{})) stride *= static_cast<double>(std::max<int64_t>(1, s));
    out = Elements(*x) / stride;
  }
  return out * window * factor;
}

double Counter::RowElements(const OpNode& n, CostRule rule) const {
  switch (rule) {
    case CostRule::kReduction: return ReduceRow(n);
    case CostRule::kNorm: return NormRow(n);
    case CostRule::kSoftmax: {
      const TensorInfo* x = n.Input(0);
      if (!x) return 0;
      std::vector<double> d = Dims(*x);
      bool old = n.opset > 0 && n.opset < 13;
      std::optional<size_t> axis = NormalizeAxis(n.Int("axis", old ? 1 : -1), d.size());
      if (!axis) return 0;
      return old ? Product(d, *axis, d.size()) : d[*axis];
    }
    case CostRule::kPooling: {
      const TensorInfo* x = n.Input(0);
      if (!x || n.op_type.rfind("Global", 0) != 0) return 0;
      std::vector<double> d = Dims(*x);
      return Product(d, 2, d.size());
    }
    default: return 0;
  }
}

double Counter::ReduceRow(const OpNode& n) const {
  const TensorInfo* x = n.Input(0);
  if (!x) return 0;
  std::vector<double> d = Dims(*x);
  if (n.op_type == "ArgMax" || n.op_type == "ArgMin") {
    std::optional<size_t> axis = NormalizeAxis(n.Int("axis", 0), d.size());
    return axis ? d[*axis] : 0;
  }
  std::optional<std::vector<int64_t>> axes = n.Ints("axes");
  if (!axes)
    if (const TensorInfo* a = n.Input(1); a && a->int_values) axes = a->int_values;
  if (!axes || axes->empty()) {
    if (n.Int("noop_with_empty_axes", 0) != 0) return 0;
    return Product(d, 0, d.size());
  }
  double row = 1;
  std::set<size_t> seen;
  for (int64_t a : *axes)
    if (std::optional<size_t> axis = NormalizeAxis(a, d.size()); axis && seen.insert(*axis).second) row *= d[*axis];
  return row;
}

double Counter::NormRow(const OpNode& n) const {
  const TensorInfo* x = n.Input(0);
  if (!x) return 0;
  std::vector<double> d = Dims(*x);
  const std::string& op = n.op_type;
  if (op == "BatchNormalization") {
    // Inference: a per-channel affine map, nothing reduced; training reduces over all but the channel.
    return n.Int("training_mode", 0) != 0 && d.size() >= 2 ? d[0] * Product(d, 2, d.size()) : 0;
  }
  if (op == "InstanceNormalization") return Product(d, 2, d.size());
  if (op == "GroupNormalization") {
    double groups = static_cast<double>(std::max<int64_t>(1, n.Int("num_groups", 1)));
    return d.size() >= 2 ? d[1] / groups * Product(d, 2, d.size()) : 0;
  }
  if (op == "LpNormalization") {
    std::optional<size_t> axis = NormalizeAxis(n.Int("axis", -1), d.size());
    return axis ? d[*axis] : 0;
  }
  if (op == "MeanVarianceNormalization") {
    std::vector<int64_t> axes = n.Ints("axes").value_or(std::vector<int64_t>{0, 2, 3});
    double row = 1;
    for (int64_t a : axes)
      if (std::optional<size_t> axis = NormalizeAxis(a, d.size())) row *= d[*axis];
    return row;
  }
  // LayerNormalization, RMSNormalization, SimplifiedLayerNormalization, SkipLayerNormalization: the tail from axis.
  std::optional<size_t> axis = NormalizeAxis(n.Int("axis", -1), d.size());
  return axis ? Product(d, *axis, d.size()) : 0;
}

}  // namespace kiln::ascend
