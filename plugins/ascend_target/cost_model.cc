// The Ascend cost model: engines, node and group rooflines, the tile check, formats (cost_model.h says how).
#include "cost_model.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace kiln::ascend {
namespace {

bool IsCubeRule(CostRule r) {
  return r == CostRule::kConv || r == CostRule::kConvTranspose || r == CostRule::kMatMul || r == CostRule::kGemm;
}
bool IsFree(CostRule r) { return r == CostRule::kView || r == CostRule::kConstant; }

std::string Describe(const OpNode& n) { return n.name.empty() ? n.op_type : "'" + n.name + "' (" + n.op_type + ")"; }

std::string Bytes(double b) {
  std::ostringstream os;
  os << static_cast<uint64_t>(std::llround(b)) << " B";
  return os.str();
}

std::string Count(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

uint64_t ToU64(double v) { return v <= 0 ? 0 : static_cast<uint64_t>(std::llround(v)); }

double RoundUp(double v, double granule) { return granule > 0 ? std::ceil(v / granule) * granule : v; }

// The same-width kin of an element type, for a rate or C0 table without the type itself.
std::string_view KinOf(std::string_view type) {
  if (type == "uint8" || type == "bool") return "int8";
  if (type == "uint16") return "int16";
  if (type == "uint32") return "int32";
  if (type == "uint64") return "int64";
  return "";
}

// The element type of a node's compute: the data input's for the cube, else the widest of its tensors.
int32_t ComputeType(const OpNode& n, CostRule rule) {
  if (IsCubeRule(rule))
    if (const TensorInfo* x = n.Input(0)) return x->elem_type;
  int32_t best = 0;
  int best_bytes = -1;
  for (const auto* list : {&n.inputs, &n.outputs})
    for (const auto& t : *list)
      if (t && ElemTypeBytes(t->elem_type) > best_bytes) {
        best = t->elem_type;
        best_bytes = ElemTypeBytes(t->elem_type);
      }
  return best;
}

}  // namespace

CostModel::CostModel(TargetDescription description) : d_(std::move(description)) {
  for (const OpClass& c : d_.classes)
    for (const std::string& op : c.ops) class_of_[op] = &c;
}

const OpClass* CostModel::ClassOf(const OpNode& n) const {
  auto it = class_of_.find(n.Key());
  return it == class_of_.end() ? nullptr : it->second;
}

std::string CostModel::EngineOf(const OpNode& n) const {
  const EngineRules& r = d_.engine_rules;
  if (auto it = r.overrides.find(n.Key()); it != r.overrides.end()) return it->second;
  const OpClass* c = ClassOf(n);
  std::string engine = c ? c->engine : r.default_engine;
  if (r.topk_large_k && n.Key() == "TopK") {
    std::optional<int64_t> k;
    if (const TensorInfo* kt = n.Input(1); kt && kt->int_values && !kt->int_values->empty()) k = kt->int_values->front();
    else if (int64_t attr = n.Int("k", -1); attr >= 0) k = attr;  // opset < 10
    if (k && static_cast<double>(*k) >= r.topk_large_k->min_k.value) return r.topk_large_k->engine;
  }
  if (c && r.small_int_to_host &&
      std::find(r.small_int_to_host->classes.begin(), r.small_int_to_host->classes.end(), c->name) !=
          r.small_int_to_host->classes.end()) {
    const SmallIntRule& s = *r.small_int_to_host;
    bool small = false;
    for (const auto& o : n.outputs) {
      if (!o) continue;
      bool typed = std::find(s.elem_types.begin(), s.elem_types.end(), ElemTypeName(o->elem_type)) != s.elem_types.end();
      if (!typed || !Counter::IsStatic(*o) || Counter(1, nullptr).Elements(*o) > s.max_elements.value) return engine;
      small = true;
    }
    if (small) return s.engine;
  }
  return engine;
}

double CostModel::RateOf(const Engine& e, int32_t elem_type, Notes& notes) const {
  std::string_view type = ElemTypeName(elem_type);
  if (auto it = e.peak.find(type); it != e.peak.end()) return it->second.ops_per_second;
  if (std::string_view kin = KinOf(type); !kin.empty())
    if (auto it = e.peak.find(kin); it != e.peak.end()) return it->second.ops_per_second;
  if (auto it = e.peak.find("any"); it != e.peak.end()) return it->second.ops_per_second;
  auto slowest = std::min_element(e.peak.begin(), e.peak.end(), [](const auto& a, const auto& b) {
    return a.second.ops_per_second < b.second.ops_per_second;
  });
  notes.other.insert("no " + std::string(type) + " rate on " + e.name + ": used its slowest (" + slowest->first + ")");
  return slowest->second.ops_per_second;
}

double CostModel::LaunchOf(const Engine& e) const { return e.launch ? e.launch->value : d_.sync.launch.value; }

double CostModel::C0Of(int32_t elem_type) const {
  std::string_view type = ElemTypeName(elem_type);
  const auto& t = d_.formats.c0.values;
  if (auto it = t.find(type); it != t.end()) return it->second;
  if (std::string_view kin = KinOf(type); !kin.empty())
    if (auto it = t.find(kin); it != t.end()) return it->second;
  // The fractal rule (16, 32 / sizeof(T)) of CAT-ISA for a type the table lacks.
  int bytes = ElemTypeBytes(elem_type);
  return bytes > 0 ? std::max(1, 32 / bytes) : 16;
}

bool CostModel::IsTileEngine(const Engine* e) const {
  return e && std::find(d_.tile.engines.begin(), d_.tile.engines.end(), e->name) != d_.tile.engines.end();
}

double CostModel::TileCapacity() const {
  double size = d_.FindBuffer(d_.tile.buffer)->bytes.value;
  return size - (d_.tile.reserved ? d_.tile.reserved->value : 0);
}

CostModel::NodeCost CostModel::CostOf(const OpNode& n, Notes& notes) const {
  static const NumberTable kNoFactors;
  NodeCost c;
  std::string engine = EngineOf(n);
  c.engine = d_.FindEngine(engine);
  if (!c.engine) throw std::logic_error("engine '" + engine + "' of " + Describe(n) + " is not in the description");
  const OpClass* cls = ClassOf(n);
  c.rule = cls ? cls->cost : CostRule::kInputElements;
  if (!cls) notes.other.insert("no op class lists " + n.Key() + ": " + engine + " (engine_rules.default_engine)");
  Counter counter(d_.assumptions.symbolic_dim.value, &notes);
  c.flops = counter.Flops(n, c.rule, cls ? cls->factors : kNoFactors);
  c.bytes = c.engine->device ? counter.Bytes(n, c.rule) : 0;
  c.compute = c.flops > 0 ? c.flops / RateOf(*c.engine, ComputeType(n, c.rule), notes) : 0;
  return c;
}

double CostModel::WorkingSet(const std::vector<const OpNode*>& nodes, const std::vector<NodeCost>& costs,
                             const std::set<std::string>& streamed, Notes& notes, double* row,
                             std::string* row_node) const {
  Counter counter(d_.assumptions.symbolic_dim.value, &notes);
  // A view's outputs are its input's tensor.
  std::map<std::string, std::string> alias;
  auto root = [&](std::string id) {
    for (int guard = 0; guard < 64; ++guard) {
      auto it = alias.find(id);
      if (it == alias.end()) break;
      id = it->second;
    }
    return id;
  };
  for (size_t i = 0; i < nodes.size(); ++i)
    if (costs[i].rule == CostRule::kView)
      if (const TensorInfo* in = nodes[i]->Input(0))
        for (const auto& o : nodes[i]->outputs)
          if (o) alias[o->id] = root(in->id);

  *row = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!IsTileEngine(costs[i].engine) || IsFree(costs[i].rule)) continue;
    double r = counter.RowElements(*nodes[i], costs[i].rule);
    if (r > *row) {
      *row = r;
      *row_node = Describe(*nodes[i]);
    }
  }
  struct Entry {
    const TensorInfo* t;
    bool streamed;
  };
  std::map<std::string, Entry> tensors;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!IsTileEngine(costs[i].engine) || IsFree(costs[i].rule)) continue;
    for (const auto* list : {&nodes[i]->inputs, &nodes[i]->outputs})
      for (const auto& t : *list) {
        if (!t || (t->constant && t->int_values)) continue;  // axes, k: kernel parameters, not UB data
        std::string r = root(t->id);
        Entry& e = tensors.try_emplace(r, Entry{&*t, false}).first->second;
        e.streamed = e.streamed || streamed.count(t->id) || streamed.count(r);
      }
  }
  double total = 0;
  for (const auto& [id, e] : tensors) {
    double elems = *row > 0 ? std::min(counter.Elements(*e.t), *row) : 0;
    double bytes = std::max(elems * ElemTypeBytes(e.t->elem_type), d_.tile.min_tile_bytes.value);
    bytes = RoundUp(bytes, d_.tile.block_bytes.value);
    total += e.streamed ? bytes * d_.tile.double_buffer.value : bytes;
  }
  // The cube's largest fractal step: A 16 x C0, B C0 x 16 of the input type, C 16 x 16 four-byte accumulators.
  double cube = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!IsCubeRule(costs[i].rule) || IsTileEngine(costs[i].engine)) continue;
    const TensorInfo* x = nodes[i]->Input(0);
    int32_t type = x ? x->elem_type : 10;
    double c0 = C0Of(type);
    cube = std::max(cube, 2 * 16 * c0 * std::max(1, ElemTypeBytes(type)) + 16 * 16 * 4);
  }
  return total + cube;
}

Cost CostModel::EstimateNode(const OpNode& n) const {
  Notes notes;
  NodeCost c = CostOf(n, notes);
  Cost out;
  out.engine = c.engine->name;
  out.flops = ToU64(c.flops);
  const bool launches = c.engine->device && !IsFree(c.rule);
  out.offchip_bytes = ToU64(c.bytes);
  out.compute_seconds = c.compute;
  out.memory_seconds = c.engine->device ? c.bytes / d_.offchip.bandwidth.value : 0;
  out.launches = launches ? 1 : 0;
  out.launch_seconds = launches ? LaunchOf(*c.engine) : 0;
  out.seconds = std::max(out.compute_seconds, out.memory_seconds) + out.launch_seconds;
  std::vector<std::string> parts;
  if (c.rule == CostRule::kView) parts.push_back("a view: metadata only, no kernel");
  if (c.rule == CostRule::kConstant) parts.push_back("a constant: no work");
  if (!c.engine->device) parts.push_back("runs on the host: no launch, no device memory traffic");
  if (!IsFree(c.rule) && c.engine->device) {
    std::set<std::string> all;
    for (const auto* list : {&n.inputs, &n.outputs})
      for (const auto& t : *list)
        if (t) all.insert(t->id);
    double row = 0;
    std::string row_node;
    std::vector<const OpNode*> one{&n};
    std::vector<NodeCost> costs{c};
    double ws = WorkingSet(one, costs, all, notes, &row, &row_node);
    out.onchip_bytes = ToU64(ws);
    if (IsTileEngine(c.engine) && ws > TileCapacity())
      parts.push_back("its row of " + Count(row) + " elements does not fit one " + d_.tile.buffer +
                      " tile: the kernel needs several passes");
  }
  if (std::string t = notes.Text(d_.assumptions.symbolic_dim.value); !t.empty()) parts.push_back(t);
  for (const std::string& p : parts) out.reason += (out.reason.empty() ? "" : "; ") + p;
  return out;
}

Cost CostModel::EstimateGroup(const std::vector<OpNode>& nodes) const {
  Notes notes;
  std::vector<const OpNode*> real;
  std::vector<NodeCost> costs;
  for (const OpNode& n : nodes) {
    const OpClass* cls = ClassOf(n);
    if (cls && cls->cost == CostRule::kConstant) continue;  // its output is read like any external input
    real.push_back(&n);
    costs.push_back(CostOf(n, notes));
  }
  Cost out;
  if (real.empty()) {
    out.engine = nodes.empty() ? d_.engine_rules.default_engine : EngineOf(nodes.front());
    out.reason = nodes.empty() ? "an empty group" : "only constants: no work";
    return out;
  }
  out.engine = costs.front().engine->name;

  // ---- engines that cannot share a kernel
  std::vector<std::string> parts;
  bool all_host = std::all_of(costs.begin(), costs.end(), [](const NodeCost& c) { return !c.engine->device; });
  if (!all_host && real.size() > 1) {
    size_t odd = real.size();
    for (size_t i = 0; i < real.size() && odd == real.size(); ++i)
      if (!costs[i].engine->device || !costs[i].engine->fuses) odd = i;
    if (odd < real.size()) {
      size_t other = real.size();
      for (size_t i = 0; i < real.size(); ++i)
        if (i != odd && costs[i].engine != costs[odd].engine) {
          other = i;
          break;
        }
      out.feasible = false;
      const std::string& e = costs[odd].engine->name;
      if (other == real.size())
        parts.push_back("not feasible: " + e + " does not fuse; " + std::to_string(real.size()) +
                        " nodes on it run as separate tasks");
      else
        parts.push_back("not feasible: mixes " + Describe(*real[odd]) + " on " + e + " with " +
                        Describe(*real[other]) + " on " + costs[other].engine->name + ": " +
                        (costs[odd].engine->device ? "nodes on " + e + " do not fuse"
                                                   : "host work is not a device kernel") +
                        ", so they cannot share one kernel");
    }
  }

  // ---- the group's edges
  Counter counter(d_.assumptions.symbolic_dim.value, &notes);
  std::map<std::string, size_t> producer;
  std::set<std::string> consumed;
  for (size_t i = 0; i < real.size(); ++i) {
    for (const auto& o : real[i]->outputs)
      if (o) producer.emplace(o->id, i);
    for (const auto& in : real[i]->inputs)
      if (in) consumed.insert(in->id);
  }
  // The producer of a tensor, looking through views.
  auto real_producer = [&](std::string id) -> std::optional<size_t> {
    for (size_t guard = 0; guard <= real.size(); ++guard) {
      auto p = producer.find(id);
      if (p == producer.end()) return std::nullopt;
      const TensorInfo* in = real[p->second]->Input(0);
      if (costs[p->second].rule != CostRule::kView || !in) return p->second;
      id = in->id;
    }
    return std::nullopt;
  };
  std::set<std::string> seen, streamed;
  double bytes = 0;
  for (size_t i = 0; i < real.size(); ++i) {
    for (const auto& in : real[i]->inputs)
      if (in && !producer.count(in->id) && seen.insert(in->id).second) {
        bytes += counter.Bytes(*in);
        streamed.insert(in->id);
      }
    for (const auto& o : real[i]->outputs)
      if (o && (o->read_outside || !consumed.count(o->id)) && seen.insert(o->id).second) {
        bytes += counter.Bytes(*o);
        streamed.insert(o->id);
      }
    // A tensor crossing between a tile engine and another one (the cube) streams through the tile buffer.
    if (costs[i].rule != CostRule::kView)
      for (const auto& in : real[i]->inputs)
        if (in)
          if (std::optional<size_t> p = real_producer(in->id);
              p && IsTileEngine(costs[*p].engine) != IsTileEngine(costs[i].engine))
            streamed.insert(in->id);
  }
  const bool device = !all_host;
  out.offchip_bytes = device ? ToU64(bytes) : 0;
  out.memory_seconds = device ? bytes / d_.offchip.bandwidth.value : 0;

  // ---- engine runs, compute, barriers
  std::vector<std::pair<const Engine*, std::vector<const OpNode*>>> runs;
  double flops = 0;
  for (size_t i = 0; i < real.size(); ++i) {
    flops += costs[i].flops;
    out.compute_seconds += costs[i].compute;
    if (costs[i].rule == CostRule::kView) continue;
    if (runs.empty() || runs.back().first != costs[i].engine) runs.push_back({costs[i].engine, {}});
    runs.back().second.push_back(real[i]);
  }
  out.flops = ToU64(flops);
  std::string run_text;
  for (size_t k = 0; k < runs.size(); ++k) {
    std::string ops;
    for (const OpNode* n : runs[k].second) ops += (ops.empty() ? "" : ", ") + n->op_type;
    run_text += (k ? " -> " : "") + runs[k].first->name + "[" + ops + "]";
    if (k == 0) continue;
    const std::string &a = runs[k - 1].first->name, &b = runs[k].first->name;
    for (const Barrier& bar : d_.sync.barriers)
      if ((bar.a == a && bar.b == b) || (bar.a == b && bar.b == a)) {
        ++out.barriers;
        out.barrier_seconds += bar.cost.value;
      }
  }
  if (!run_text.empty()) parts.push_back("runs " + run_text);
  if (out.barriers) parts.push_back(std::to_string(out.barriers) + " barrier(s)");

  // ---- launch, tile working set
  if (device) {
    const Engine* first = nullptr;
    for (const NodeCost& c : costs)
      if (c.engine->device && !first) first = c.engine;
    out.launches = 1;
    out.launch_seconds = LaunchOf(*first);
    double row = 0;
    std::string row_node;
    double ws = WorkingSet(real, costs, streamed, notes, &row, &row_node);
    out.onchip_bytes = ToU64(ws);
    const double capacity = TileCapacity();
    if (ws > capacity) {
      out.feasible = false;
      std::string why = "not feasible: tile working set " + Bytes(ws) + " exceeds the " + d_.tile.buffer + " (" +
                        Bytes(capacity) + " usable)";
      if (row > 0) why += "; the longest row is " + Count(row) + " elements, of " + row_node;
      parts.insert(parts.begin(), why);
    } else {
      parts.push_back("tile working set " + Bytes(ws) + " of " + Bytes(capacity) + " (" + d_.tile.buffer + ")");
    }
  } else {
    parts.push_back("runs on the host: no launch, no device memory traffic");
  }
  out.seconds = std::max(out.compute_seconds, out.memory_seconds) + out.launch_seconds + out.barrier_seconds;
  if (std::string t = notes.Text(d_.assumptions.symbolic_dim.value); !t.empty()) parts.push_back(t);
  for (const std::string& p : parts) out.reason += (out.reason.empty() ? "" : "; ") + p;
  return out;
}

double CostModel::SyncCost(std::string_view from, std::string_view to) const {
  for (std::string_view e : {from, to})
    if (!d_.FindEngine(e)) throw std::invalid_argument("'" + std::string(e) + "' is not an engine of " + d_.name);
  if (from == to) return 0;
  for (const Barrier& b : d_.sync.barriers)
    if ((b.a == from && b.b == to) || (b.a == to && b.b == from)) return b.cost.value;
  return 0;
}

double CostModel::FormatBytes(const TensorInfo& t, std::string_view format) const {
  Counter counter(d_.assumptions.symbolic_dim.value, nullptr);
  std::vector<double> d = counter.Dims(t);
  const double es = ElemTypeBytes(t.elem_type);
  const double c0 = C0Of(t.elem_type);
  double all = 1;
  for (double x : d) all *= x;
  auto pad = [](double v, double to) { return std::ceil(v / to) * to; };
  auto need = [&](size_t rank) {
    if (d.size() < rank)
      throw std::invalid_argument("format " + std::string(format) + " needs a tensor of rank " +
                                  std::to_string(rank) + " or more; '" + t.id + "' has rank " +
                                  std::to_string(d.size()));
  };
  if (format.empty() || format == "ND" || format == "NCHW" || format == "NHWC" || format == "NCDHW" ||
      format == "NDHWC")
    return all * es;
  if (format == "NC1HWC0" || format == "NC1HWC0_C04" || format == "NDC1HWC0") {
    need(3);
    double cc0 = format == "NC1HWC0_C04" ? 4 : c0;
    double rest = 1;
    for (size_t i = 2; i < d.size(); ++i) rest *= d[i];
    return d[0] * pad(d[1], cc0) * rest * es;
  }
  if (format == "FRACTAL_Z" || format == "FRACTAL_Z_3D") {
    need(3);
    double kernel = 1;
    for (size_t i = 2; i < d.size(); ++i) kernel *= d[i];
    return pad(d[1], c0) * kernel * pad(d[0], 16) * es;
  }
  if (format == "FRACTAL_NZ") {
    need(1);
    std::vector<double> m = d;
    if (m.size() == 1) m.insert(m.begin(), 1);
    double batch = 1;
    for (size_t i = 0; i + 2 < m.size(); ++i) batch *= m[i];
    return batch * pad(m[m.size() - 2], 16) * pad(m.back(), c0) * es;
  }
  throw std::invalid_argument("format " + std::string(format) + ": its layout is not known to the cost model");
}

std::vector<int64_t> CostModel::StorageShape(const TensorInfo& t, std::string_view format) const {
  const std::string f(format.empty() ? "ND" : format);
  if (std::find(d_.formats.supported.begin(), d_.formats.supported.end(), f) == d_.formats.supported.end() &&
      f != "ND")
    throw std::invalid_argument("format '" + f + "' is not supported by " + d_.name);
  if (!t.dims) throw std::invalid_argument("'" + t.id + "' has no known rank, so its " + f + " shape is unknown");
  const std::vector<int64_t>& d = *t.dims;
  auto need = [&](bool ok, std::string_view what) {
    if (!ok)
      throw std::invalid_argument("format " + f + " needs a tensor of " + std::string(what) + "; '" + t.id +
                                  "' has rank " + std::to_string(d.size()));
  };
  // -1 (unknown) stays unknown through ceil-division and products.
  auto ceil_div = [](int64_t v, int64_t by) { return v < 0 ? int64_t{-1} : (v + by - 1) / by; };
  auto product = [](std::initializer_list<int64_t> xs) {
    int64_t p = 1;
    for (int64_t x : xs) {
      if (x < 0) return int64_t{-1};
      p *= x;
    }
    return p;
  };
  const int64_t c0 = static_cast<int64_t>(C0Of(t.elem_type));
  if (f == "ND" || f == "NCHW" || f == "NHWC" || f == "NCDHW" || f == "NDHWC") return d;
  if (f == "NC1HWC0" || f == "NC1HWC0_C04") {
    need(d.size() >= 3, "rank 3 or more");
    const int64_t k = f == "NC1HWC0_C04" ? 4 : c0;
    std::vector<int64_t> s = {d[0], ceil_div(d[1], k)};
    s.insert(s.end(), d.begin() + 2, d.end());
    s.push_back(k);
    return s;
  }
  if (f == "NDC1HWC0") {
    need(d.size() == 5, "rank 5 (NCDHW)");
    return {d[0], d[2], ceil_div(d[1], c0), d[3], d[4], c0};
  }
  if (f == "FRACTAL_Z" || f == "FRACTAL_Z_3D") {
    need(f == "FRACTAL_Z" ? d.size() >= 3 : d.size() == 5, f == "FRACTAL_Z" ? "rank 3 or more" : "rank 5");
    int64_t rows = ceil_div(d[1], c0);
    for (size_t i = 2; i < d.size(); ++i) rows = product({rows, d[i]});
    return {rows, ceil_div(d[0], 16), 16, c0};
  }
  if (f == "FRACTAL_NZ") {
    need(!d.empty(), "rank 1 or more");
    std::vector<int64_t> m = d;
    if (m.size() == 1) m.insert(m.begin(), 1);
    std::vector<int64_t> s(m.begin(), m.end() - 2);
    s.push_back(ceil_div(m.back(), c0));
    s.push_back(ceil_div(m[m.size() - 2], 16));
    s.push_back(16);
    s.push_back(c0);
    return s;
  }
  throw std::invalid_argument("format " + f + ": its layout is not known to the cost model");
}

double CostModel::TransferCost(const TensorInfo& t, std::string_view from, std::string_view to) const {
  auto supported = [&](std::string_view f) {
    if (f.empty()) return;
    if (std::find(d_.formats.supported.begin(), d_.formats.supported.end(), f) == d_.formats.supported.end())
      throw std::invalid_argument("format '" + std::string(f) + "' is not supported by " + d_.name);
  };
  supported(from);
  supported(to);
  std::string_view a = from.empty() ? "ND" : from, b = to.empty() ? "ND" : to;
  if (a == b) return 0;
  double bytes = FormatBytes(t, a) + FormatBytes(t, b);
  return bytes / d_.offchip.bandwidth.value + d_.sync.launch.value;
}

std::string CostModel::PreferredFormat(const OpNode& n, bool is_output, size_t index) const {
  const OpClass* cls = ClassOf(n);
  if (!cls) return "ND";
  const std::vector<std::string>& list = is_output ? cls->output_formats : cls->input_formats;
  std::string f = index < list.size() ? list[index] : "ND";
  if (f == "any") return "";
  const TensorInfo* t = is_output ? n.Output(index) : n.Input(index);
  const int64_t rank = t && t->dims ? static_cast<int64_t>(t->dims->size()) : -1;
  if (rank == 5 && f == "NC1HWC0") f = "NDC1HWC0";
  if (rank == 5 && f == "FRACTAL_Z") f = "FRACTAL_Z_3D";
  const bool channel_format = f == "NC1HWC0" || f == "NDC1HWC0" || f == "NC1HWC0_C04" || f == "FRACTAL_Z" ||
                              f == "FRACTAL_Z_3D";
  if (rank >= 0 && ((channel_format && rank < 3) || (f == "FRACTAL_NZ" && rank < 2))) return "ND";
  if (std::find(d_.formats.supported.begin(), d_.formats.supported.end(), f) == d_.formats.supported.end())
    return "ND";
  return f;
}

}  // namespace kiln::ascend
