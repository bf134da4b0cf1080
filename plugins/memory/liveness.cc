// Liveness and in-place reuse; see liveness.h.
#include "liveness.h"

#include <kiln/kiln_node_table.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace kiln::memory {
namespace {

// Ops whose output 0 is input 0's bytes under another shape.
bool IsView(std::string_view op) {
  return op == "Reshape" || op == "Squeeze" || op == "Unsqueeze" || op == "Flatten" || op == "Identity";
}

// Element-wise ops of the default domain: output element i depends on input elements i only (inputs broadcast).
bool IsElementwise(std::string_view op) {
  static const std::unordered_set<std::string_view> kOps = {
      // unary
      "Abs", "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Ceil", "Celu", "Clip", "Cos", "Cosh", "Elu", "Erf",
      "Exp", "Floor", "Gelu", "HardSigmoid", "HardSwish", "LeakyRelu", "Log", "Mish", "Neg", "Not", "Reciprocal",
      "Relu", "Round", "Selu", "Sigmoid", "Sign", "Sin", "Sinh", "Softplus", "Softsign", "Sqrt", "Tan", "Tanh",
      "ThresholdedRelu",
      // binary and variadic, with broadcasting
      "Add", "Sub", "Mul", "Div", "Pow", "PRelu", "Mod", "And", "Or", "Xor", "BitShift", "Max", "Min", "Sum", "Mean",
      "Where"};
  return kOps.count(op) != 0;
}

// The bytes of a planned value, or the reason it cannot be planned.
uint64_t SizeOf(const sdk::Value& v, std::string* why) {
  if (v.Kind() != KILN_TYPE_KIND_TENSOR) {
    *why = v.Kind() == KILN_TYPE_KIND_NONE ? "no inferred type" : "not a tensor (a sequence, map or optional)";
    return 0;
  }
  const int32_t elem = v.ElemType();
  if (elem == KILN_ELEM_STRING) {
    *why = "a string tensor: its bytes are known only when it runs";
    return 0;
  }
  const size_t elem_bytes = kiln_elem_type_size(elem);
  if (elem_bytes == 0) {
    *why = "element type " + std::to_string(elem) + " has no fixed size";
    return 0;
  }
  std::optional<sdk::TensorShape> shape = v.Shape();
  if (!shape) {
    *why = "no inferred shape";
    return 0;
  }
  uint64_t count = 1;
  for (size_t i = 0; i < shape->size(); ++i) {
    const sdk::Dim& d = (*shape)[i];
    if (!d.IsKnown()) {
      *why = "dimension " + std::to_string(i) + " is " + (d.symbol.empty() ? "unknown" : "'" + d.symbol + "'");
      return 0;
    }
    count *= static_cast<uint64_t>(d.value);
  }
  return count * elem_bytes;
}

class LivenessBuilder {
 public:
  LivenessBuilder(sdk::Graph main, bool in_place) : main_(main), in_place_(in_place) {}

  Liveness Build(const std::vector<sdk::Node>& order) {
    out_.schedule.reserve(order.size());
    Walk(order);
    // Steps and value numbers in 32 bits: no memory holds a graph with four billion of either.
    if (out_.schedule.size() >= UINT32_MAX) throw std::length_error("liveness: four billion steps or more");
    steps_ = sdk::NodeTable<uint32_t>(out_.schedule);
    size_t outputs = 0;
    for (size_t i = 0; i < out_.schedule.size(); ++i) {
      steps_.Set(out_.schedule[i], static_cast<uint32_t>(i) + 1);
      outputs += out_.schedule[i].OutputCount();
    }
    if (outputs >= UINT32_MAX) throw std::length_error("liveness: four billion values or more");
    out_.values.reserve(outputs);
    first_value_.reserve(out_.schedule.size() + 1);
    for (size_t i = 0; i < out_.schedule.size(); ++i) {
      first_value_.push_back(static_cast<uint32_t>(out_.values.size()));
      AddOutputs(out_.schedule[i], static_cast<int64_t>(i));
    }
    first_value_.push_back(static_cast<uint32_t>(out_.values.size()));
    for (LiveValue& lv : out_.values) SetLastUse(lv);
    AssignBuffers();
    return std::move(out_);
  }

 private:
  // Lists the steps: a holder's subgraph nodes first, then the holder.
  void Walk(const std::vector<sdk::Node>& nodes) {
    for (const sdk::Node& n : nodes) {
      for (size_t i = 0; i < n.SubgraphCount(); ++i) Walk(n.Subgraph(i).TopoOrder());
      out_.schedule.push_back(n);
    }
  }

  // The step of a node of the schedule; nullopt for any other, and for none.
  std::optional<int64_t> StepOf(const sdk::Node& n) const {
    const uint32_t s = n ? steps_.Get(n) : 0;  // the step plus one; 0 for a node outside the schedule
    return s > 0 ? std::optional<int64_t>(s - 1) : std::nullopt;
  }

  // The intermediate `v` is, found among its producer's (a value is numbered at its producer's step, so no index
  // by handle is kept: a sorted one took 16 bytes a value); null for any other value.
  LiveValue* Find(const sdk::Value& v) {
    const std::optional<int64_t> step = v ? StepOf(v.Producer()) : std::nullopt;
    if (!step) return nullptr;
    const auto s = static_cast<size_t>(*step);
    for (uint32_t i = first_value_[s]; i < first_value_[s + 1]; ++i)
      if (out_.values[i].value == v) return &out_.values[i];
    return nullptr;
  }

  void AddOutputs(const sdk::Node& n, int64_t step) {
    if (n.Is("Constant")) return;
    for (const sdk::Value& v : n.Outputs()) {
      if (!v || v.IsConstant()) continue;
      LiveValue lv;
      lv.value = v;
      lv.first = step;
      std::string why;
      lv.bytes = SizeOf(v, &why);
      if (!why.empty()) lv.unplanned = ReasonIndex(std::move(why));
      ++(lv.planned() ? out_.planned_values : out_.unplanned_values);
      out_.values.push_back(std::move(lv));
    }
  }

  // The node of graph g that is, or holds, n; null when n is not inside g.
  static sdk::Node AncestorIn(sdk::Node n, const sdk::Graph& g) {
    while (n && n.OwnerGraph() != g) n = n.OwnerGraph().ParentNode();
    return n;
  }

  void SetLastUse(LiveValue& lv) {
    lv.last = lv.first;
    const sdk::Graph g = lv.value.OwnerGraph();
    for (const sdk::Use& use : lv.value.Consumers()) {
      if (const std::optional<int64_t> step = StepOf(AncestorIn(use.node, g))) lv.last = std::max(lv.last, *step);
    }
    if (!lv.value.IsGraphOutput()) return;
    if (sdk::Node holder = g.ParentNode()) {
      // The holder reads it at its step; nothing later does.
      const std::optional<int64_t> step = StepOf(holder);
      if (!step) throw std::out_of_range("liveness: a subgraph's holder outside the schedule");
      lv.last = std::max(lv.last, *step);
    } else {
      lv.last = out_.steps() - 1;
      pinned_.insert(lv.value.raw());  // the caller reads it after the last step: never written over
    }
  }

  LiveValue* Planned(const sdk::Value& v) {
    LiveValue* lv = Find(v);
    return lv && lv->planned() && lv->buffer >= 0 ? lv : nullptr;
  }

  // The reason's index in out_.reasons, added when new: values share a few reasons.
  int32_t ReasonIndex(std::string why) {
    auto [it, added] = reason_index_.emplace(std::move(why), static_cast<int32_t>(out_.reasons.size()));
    if (added) out_.reasons.push_back(it->first);
    return it->second;
  }

  void Join(LiveValue& lv, const LiveValue& base, Reuse kind) {
    lv.buffer = base.buffer;
    lv.reuse = kind;
    lv.reuse_of = static_cast<int32_t>(&base - out_.values.data());
    ++(kind == Reuse::kView ? out_.views : out_.in_place);
    Interval& b = out_.buffers[static_cast<size_t>(lv.buffer)];
    b.last = std::max(b.last, lv.last);
    if (pinned_.count(lv.value.raw())) pinned_buffers_.insert(lv.buffer);
  }

  // Tries to put lv (an output of n, at n's step) into an input's buffer.
  bool Reuse(LiveValue& lv, const sdk::Node& n, size_t output) {
    if (!in_place_ || output != 0 || !n.Domain().empty()) return false;
    const std::string_view op = n.OpType();
    if (IsView(op)) {
      const LiveValue* in = Planned(n.Input(0));
      if (!in || in->bytes != lv.bytes) return false;
      Join(lv, *in, Reuse::kView);
      return true;
    }
    if (!IsElementwise(op)) return false;
    for (size_t i = 0; i < n.InputCount(); ++i) {
      const LiveValue* in = Planned(n.Input(i));
      if (!in || in->bytes != lv.bytes || in->value.ElemType() != lv.value.ElemType()) continue;
      if (in->value.OwnerGraph() != n.OwnerGraph() || pinned_buffers_.count(in->buffer)) continue;
      if (out_.buffers[static_cast<size_t>(in->buffer)].last != lv.first) continue;  // read later: not dead yet
      Join(lv, *in, Reuse::kInPlace);
      return true;
    }
    return false;
  }

  void AssignBuffers() {
    // A buffer per planned value at most, reserved so: growing by doubling held the old array beside the new one
    // (the 1M-node chain's O2: 333k buffers, 12 MB beside 6).
    out_.buffers.reserve(out_.planned_values);
    for (const sdk::Node& n : out_.schedule) {
      for (size_t o = 0; o < n.OutputCount(); ++o) {
        LiveValue* found = Find(n.Output(o));
        if (!found) continue;
        LiveValue& lv = *found;
        if (!lv.planned()) continue;
        out_.intermediate_bytes += lv.bytes;
        if (Reuse(lv, n, o)) continue;
        lv.buffer = static_cast<int>(out_.buffers.size());
        out_.buffers.push_back({lv.bytes, lv.first, lv.last});
        if (pinned_.count(lv.value.raw())) pinned_buffers_.insert(lv.buffer);
      }
    }
  }

  sdk::Graph main_;
  bool in_place_;
  Liveness out_;
  sdk::NodeTable<uint32_t> steps_;   // each scheduled node's step plus one
  std::vector<uint32_t> first_value_;  // the first of out_.values made at each step, and their count last
  std::unordered_set<KilnValue*> pinned_;  // the main graph's outputs
  std::unordered_set<int> pinned_buffers_;
  std::unordered_map<std::string, int32_t> reason_index_;
};

}  // namespace

std::string_view ReuseName(Reuse r) {
  switch (r) {
    case Reuse::kView: return "view";
    case Reuse::kInPlace: return "in-place";
    case Reuse::kNone: break;
  }
  return "";
}

std::string_view StepLabel(const sdk::Node& n) { return n.Name().empty() ? n.OpType() : n.Name(); }

uint64_t PlannedBytes(const sdk::Value& value, std::string* why) {
  std::string reason;
  const uint64_t bytes = SizeOf(value, &reason);
  if (why) *why = reason;
  return reason.empty() ? bytes : 0;
}

Liveness ComputeLiveness(sdk::Graph graph, const std::vector<sdk::Node>& order, bool in_place) {
  return LivenessBuilder(graph, in_place).Build(order);
}

}  // namespace kiln::memory
