#include "cost_model.h"

#include <algorithm>
#include <cstring>
#include <unordered_set>

namespace kiln::fusion {
namespace {

// The generic model's nominal machine (a few CPU cores): what it decides is the ratio, not the absolute time.
constexpr double kLaunchSeconds = 5e-6;
constexpr double kBytesPerSecond = 20e9;
constexpr double kFlopsPerSecond = 50e9;

int64_t Elements(const sdk::Value& v) {
  if (!v || v.Rank() < 0) return 0;
  int64_t n = 1;
  for (int64_t d : v.Dims()) n *= d < 0 ? 1 : d;
  return n;
}

int64_t ElemSize(int32_t t) {
  switch (t) {
    case KILN_ELEM_DOUBLE: case KILN_ELEM_INT64: case KILN_ELEM_UINT64: case KILN_ELEM_COMPLEX64: return 8;
    case KILN_ELEM_FLOAT: case KILN_ELEM_INT32: case KILN_ELEM_UINT32: return 4;
    case KILN_ELEM_FLOAT16: case KILN_ELEM_BFLOAT16: case KILN_ELEM_INT16: case KILN_ELEM_UINT16: return 2;
    case KILN_ELEM_COMPLEX128: return 16;
    default: return 1;
  }
}

// Arithmetic of one node: exact for MatMul, Gemm and Conv, element count times a small factor otherwise.
double Flops(const sdk::Node& n) {
  std::string_view op = n.OpType();
  sdk::Value out = n.Output(0);
  double out_elems = static_cast<double>(Elements(out));
  if ((op == "MatMul" || op == "Gemm") && n.Input(0) && n.Input(0).Rank() >= 1) {
    auto a = n.Input(0).Dims();
    int64_t k = a.back() < 0 ? 1 : a.back();
    if (op == "Gemm" && n.GetInt("transA", 0) && a.size() == 2) k = a[0] < 0 ? 1 : a[0];
    return 2.0 * out_elems * static_cast<double>(k);
  }
  if ((op == "Conv" || op == "ConvTranspose") && n.Input(1) && n.Input(1).Rank() >= 3) {
    auto w = n.Input(1).Dims();
    double per_output = 1;
    for (size_t i = 1; i < w.size(); ++i) per_output *= static_cast<double>(w[i] < 0 ? 1 : w[i]);
    return 2.0 * out_elems * per_output;
  }
  static const std::string_view kTranscendental[] = {"Exp", "Log", "Erf", "Tanh", "Sigmoid", "Softmax",
                                                      "Pow", "Sqrt", "Gelu", "Softplus", "LayerNormalization"};
  double factor = std::find(std::begin(kTranscendental), std::end(kTranscendental), op) != std::end(kTranscendental) ? 8 : 1;
  double in_elems = n.Input(0) ? static_cast<double>(Elements(n.Input(0))) : out_elems;
  return factor * std::max(in_elems, out_elems);
}

double Time(double flops, double bytes, int launches) {
  return launches * kLaunchSeconds + std::max(flops / kFlopsPerSecond, bytes / kBytesPerSecond);
}

bool HasTarget() { return KILN_HOST_HAS(&sdk::Host(), target_active) && sdk::Host().target_active() != nullptr; }

// The active target's estimate of nodes (one node, or a group as one kernel).
bool TargetEstimate(const std::vector<sdk::Node>& nodes, KilnCostEstimate& out, std::string& error) {
  std::vector<KilnNode*> raw;
  for (const sdk::Node& n : nodes) raw.push_back(n.raw());
  std::memset(&out, 0, sizeof out);
  out.struct_size = sizeof out;
  sdk::Status s(sdk::Host().target_estimate(raw.data(), raw.size(), &out));
  if (s) {
    error = s.message();
    return false;
  }
  return true;
}

}  // namespace

uint64_t ValueBytes(const sdk::Value& v) {
  return static_cast<uint64_t>(Elements(v) * ElemSize(v ? v.ElemType() : 0));
}

GroupCost EstimateGroup(const std::vector<sdk::Node>& nodes) {
  GroupCost c;
  if (HasTarget()) {
    c.model = std::string("target ") + sdk::Host().target_active();
    std::string error;
    for (const sdk::Node& n : nodes) {
      KilnCostEstimate e;
      if (!TargetEstimate({n}, e, error)) {
        c.feasible = false;
        c.reason = "the target cannot estimate node '" + std::string(n.Name()) + "': " + error;
        return c;
      }
      c.unfused_seconds += e.seconds;
    }
    KilnCostEstimate g;
    if (!TargetEstimate(nodes, g, error)) {
      c.feasible = false;
      c.reason = "the target cannot estimate the group: " + error;
      return c;
    }
    c.fused_seconds = g.seconds;
    c.feasible = g.feasible != 0;
    if (g.reason) c.reason = g.reason;
    return c;
  }
  c.model = "generic";
  std::unordered_set<KilnNode*> in_group;
  for (const sdk::Node& n : nodes) in_group.insert(n.raw());
  double flops = 0, external_bytes = 0;
  for (const sdk::Node& n : nodes) {
    double f = Flops(n), bytes = 0;
    for (const sdk::Value& in : n.Inputs()) {
      if (!in) continue;
      bytes += static_cast<double>(ValueBytes(in));
      sdk::Node p = in.Producer();
      if (!p || !in_group.count(p.raw())) external_bytes += static_cast<double>(ValueBytes(in));
    }
    for (const sdk::Value& out : n.Outputs()) {
      if (!out) continue;
      bytes += static_cast<double>(ValueBytes(out));
      bool escapes = out.IsGraphOutput();
      for (const sdk::Use& u : out.Consumers()) escapes = escapes || !in_group.count(u.node.raw());
      if (escapes) external_bytes += static_cast<double>(ValueBytes(out));
    }
    flops += f;
    c.unfused_seconds += Time(f, bytes, 1);
  }
  c.fused_seconds = Time(flops, external_bytes, 1);
  return c;
}

}  // namespace kiln::fusion
