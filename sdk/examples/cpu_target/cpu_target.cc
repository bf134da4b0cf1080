// cpu_target: the smallest Kiln hardware target, written with the SDK's C++ wrapper (kiln_plugin_target.hpp) and
// built out of tree. It has one engine, "cpu", and estimates with a roofline from two numbers:
//
//   compute = FLOPs / kPeakFlops      FLOPs: MatMul and Gemm 2*K per output element, Conv 2 * (filter elements /
//                                     output channels) per output element, anything else 1 per output element
//   memory  = bytes / kBandwidth      bytes: what the node (or group) reads from outside and writes for outside
//   seconds = max(compute, memory)    no launch cost, no barriers, every format alike
//
// A group (or a call of a model-local function, which stands for its body) is one loop nest: its FLOPs add up
// and only the tensors that cross its boundary move. Unknown dimensions count as 1. Nothing here is Ascend-
// shaped: the same ABI carries a target with one engine and no formats.
#include <kiln/kiln_plugin_target.hpp>

#include <algorithm>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace {

namespace sdk = kiln::sdk;

constexpr double kPeakFlops = 100e9;  // 100 GFLOP/s: a few cores with SIMD
constexpr double kBandwidth = 20e9;   // 20 GB/s of DRAM bandwidth

double Elements(sdk::Value v) {
  double n = 1;
  for (int64_t d : v.Dims()) n *= d > 0 ? static_cast<double>(d) : 1;
  return n;
}
double Bytes(sdk::Value v) { return Elements(v) * static_cast<double>(kiln_elem_type_size(v.ElemType())); }

double Flops(sdk::Node n) {
  sdk::Value y = n.OutputCount() ? n.Output(0) : sdk::Value();
  if (!y) return 0;
  double out = Elements(y);
  if ((n.Is("MatMul") || n.Is("Gemm")) && n.Input(0)) {
    std::span<const int64_t> a = n.Input(0).Dims();
    bool trans = n.Is("Gemm") && n.GetInt("transA", 0) != 0;
    double k = a.empty() ? 1 : static_cast<double>(std::max<int64_t>(1, trans ? a.front() : a.back()));
    return 2 * out * k;
  }
  if (n.Is("Conv") && n.InputCount() > 1 && n.Input(1)) {
    sdk::Value w = n.Input(1);
    std::span<const int64_t> wd = w.Dims();
    double per_channel = wd.empty() || wd[0] <= 0 ? 1 : Elements(w) / static_cast<double>(wd[0]);
    return 2 * out * per_channel;
  }
  return out;
}

// The nodes a group stands for: calls replaced by their bodies.
void Flatten(sdk::Node n, std::vector<sdk::Node>& out) {
  if (sdk::Function f = n.CalledFunction()) {
    for (sdk::Node inner : f.Body().Nodes()) Flatten(inner, out);
    return;
  }
  out.push_back(n);
}

class CpuTarget final : public sdk::Target {
 public:
  std::string Engine(sdk::Node) override { return "cpu"; }

  sdk::CostEstimate Estimate(std::span<const sdk::Node> group) override {
    std::set<KilnNode*> members;
    for (const sdk::Node& n : group) members.insert(n.raw());
    // Bytes across the group's boundary, each tensor once.
    std::set<KilnValue*> seen;
    double bytes = 0;
    for (const sdk::Node& n : group) {
      for (sdk::Value v : n.Inputs()) {
        sdk::Node producer = v ? v.Producer() : sdk::Node();
        if (v && !(producer && members.count(producer.raw())) && seen.insert(v.raw()).second) bytes += Bytes(v);
      }
      for (sdk::Value v : n.Outputs()) {
        if (!v) continue;
        bool outside = v.IsGraphOutput() || v.ConsumerCount() == 0;
        for (const sdk::Use& u : v.Consumers()) outside = outside || !members.count(u.node.raw());
        if (outside && seen.insert(v.raw()).second) bytes += Bytes(v);
      }
    }
    std::vector<sdk::Node> nodes;
    for (const sdk::Node& n : group) Flatten(n, nodes);
    double flops = 0;
    for (const sdk::Node& n : nodes) flops += Flops(n);

    sdk::CostEstimate e;
    e.flops = static_cast<uint64_t>(flops);
    e.offchip_bytes = static_cast<uint64_t>(bytes);
    e.compute_seconds = flops / kPeakFlops;
    e.memory_seconds = bytes / kBandwidth;
    e.seconds = std::max(e.compute_seconds, e.memory_seconds);
    e.launches = 1;
    e.engine = "cpu";
    e.reason = e.compute_seconds >= e.memory_seconds ? "compute-bound" : "memory-bound";
    return e;
  }
};

}  // namespace

KILN_PLUGIN("cpu_target", "1.0.0", "The SDK example target: one cpu engine, a two-number roofline") {
  kiln::sdk::AddTarget<CpuTarget>(reg, {.name = "cpu",
                                        .description = "a generic CPU: 100 GFLOP/s, 20 GB/s",
                                        .engines = {"cpu"},
                                        .formats = {"ND"},
                                        .details_json = R"({"peak_flops": 1e11, "bandwidth_bytes_per_second": 2e10})"});
}
