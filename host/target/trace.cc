// Building a target's task stream and writing it as trace events; see trace.h.
#include "target/trace.h"

#include <algorithm>
#include <exception>
#include <map>
#include <set>

#include "ir/function.h"
#include "ir/graph.h"
#include "ir/model.h"
#include "ir/topo_order.h"

namespace kiln::target {
namespace {

constexpr const char* kHostEngine = "host";

// Value sizes, each value counted once (and its dimensions that are not numbers with it).
class Sizes {
 public:
  explicit Sizes(TraceTotals& totals) : totals_(totals) {}

  std::optional<uint64_t> Of(const Value* v) {
    auto it = sizes_.find(v);
    if (it != sizes_.end()) return it->second;
    std::optional<uint64_t> bytes;
    const Type& t = v->type();
    size_t elem = t.is_tensor() ? ElementSize(t.elem) : 0;
    if (elem > 0 && t.shape) {
      uint64_t count = 1;
      bool overflow = false;
      for (const Dim& d : t.shape->dims) {
        uint64_t n = 1;
        if (d.is_known()) n = static_cast<uint64_t>(std::max<int64_t>(*d.value, 0));
        else ++totals_.symbolic_dims;
        overflow = overflow || __builtin_mul_overflow(count, n, &count);
      }
      if (!overflow && !__builtin_mul_overflow(count, static_cast<uint64_t>(elem), &count)) bytes = count;
    }
    if (!bytes) ++totals_.values_without_size;
    sizes_[v] = bytes;
    return bytes;
  }

 private:
  TraceTotals& totals_;
  std::map<const Value*, std::optional<uint64_t>> sizes_;
};

std::string TaskName(const Node& n, size_t index) {
  return n.name().empty() ? n.op_type() + "#" + std::to_string(index) : n.name();
}

// A call's intermediates: values its body's nodes write and read that are not the body's outputs.
void AddOnChipValues(const Function& f, TraceTask& task, Sizes& sizes) {
  const Graph& body = f.body();
  std::set<const Value*> outputs(body.outputs().begin(), body.outputs().end());
  for (Node* n : TopologicalOrder(body).order) {
    task.kernels.push_back(n->op_type());
    for (Value* v : n->outputs()) {
      if (v == nullptr || outputs.count(v) || v->uses().empty()) continue;
      task.on_chip.push_back({v->name(), sizes.Of(v), "on-chip", 0});
    }
  }
}

nlohmann::json ValuesJson(const std::vector<TraceValue>& values) {
  nlohmann::json out = nlohmann::json::array();
  for (const TraceValue& v : values) {
    nlohmann::json j = {{"value", v.name}, {"memory", v.memory}};
    j["bytes"] = v.bytes ? nlohmann::json(*v.bytes) : nlohmann::json(nullptr);
    if (v.memory == "hbm") j["reader_tasks"] = v.reader_tasks;
    out.push_back(std::move(j));
  }
  return out;
}

double Micros(double seconds) { return seconds * 1e6; }

bool IsConstant(const Value& v) {
  if (v.initializer() && !v.is_graph_input()) return true;
  const Node* p = v.producer();
  return p != nullptr && p->op_type() == "Constant" && (p->domain().empty() || p->domain() == "ai.onnx");
}

// The format a tensor is stored in: the value annotation "format" (sdk::kFormatAnnotation, GE's StorageFormat)
// that layout passes set, else ND.
std::string StoredFormat(const Value& v) {
  auto it = v.annotations().find("format");
  return it == v.annotations().end() ? "ND" : it->second;
}

// The conversions node needs from the device (trace.h): inputs and read outputs it prefers in a format other
// than ND and other than the one the tensor is stored in.
void CountFormatConversions(const PluginTarget& target, Node* n, const std::set<size_t>& read_outputs,
                            TraceTotals& totals) {
  auto count = [&](Value* v, const std::string& format, bool to_format) {
    const std::string stored = StoredFormat(*v);
    if (format.empty() || format == "ND" || format == stored) return;
    ++totals.format_conversions;
    try {  // a tensor the target cannot price (an unknown rank) is counted without seconds
      totals.format_conversion_seconds +=
          to_format ? TransferCost(target, v, stored, format) : TransferCost(target, v, format, stored);
    } catch (const std::exception&) {
      ++totals.format_conversions_unpriced;
    }
  };
  for (size_t i = 0; i < n->num_inputs(); ++i)
    if (Value* v = n->input(i); v != nullptr && !IsConstant(*v)) count(v, PreferredFormat(target, n, false, i), true);
  for (size_t j : read_outputs) count(n->output(j), PreferredFormat(target, n, true, j), false);
}

}  // namespace

TargetTrace BuildTrace(Model& model, const PluginTarget& target) {
  TargetTrace trace;
  trace.target = target.name;
  trace.plugin = target.plugin;
  trace.engines = target.engines;
  TraceTotals& totals = trace.totals;
  Sizes sizes(totals);
  Graph& g = model.graph();
  std::vector<Node*> order = TopologicalOrderOrThrow(g, "graph '" + g.name() + "'");

  // Engines first: which nodes are tasks decides where values live.
  std::map<const Node*, size_t> task_of;  // node -> task index
  std::vector<std::pair<Node*, std::string>> placed;
  for (Node* n : order) {
    std::string engine = NodeEngine(target, n);
    if (engine == kHostEngine) {
      ++totals.host_nodes;
      continue;
    }
    task_of[n] = placed.size();
    placed.emplace_back(n, std::move(engine));
  }

  double clock = 0;
  for (size_t i = 0; i < placed.size(); ++i) {
    auto& [n, engine] = placed[i];
    TraceTask task;
    task.name = TaskName(*n, i);
    task.op = (n->domain().empty() ? "" : n->domain() + ".") + n->op_type();
    task.engine = engine;
    Node* const one[] = {n};
    task.estimate = EstimateNodes(target, one);
    task.seconds = task.estimate.seconds;
    if (const Function* f = model.CalledFunction(*n)) {
      task.fused = true;
      AddOnChipValues(*f, task, sizes);
    } else {
      task.kernels.push_back(n->op_type());
    }
    if (i > 0) {
      const std::string& previous = placed[i - 1].second;
      double barrier = SyncCost(target, previous, engine);
      if (barrier > 0) {
        trace.barriers.push_back({previous, engine, clock, barrier, i});
        clock += barrier;
      }
    }
    task.start = clock;
    clock += task.seconds;

    for (Value* v : n->inputs())
      if (v != nullptr) task.inputs.push_back({v->name(), sizes.Of(v), "hbm", 0});
    std::set<size_t> read_outputs;
    for (size_t j = 0; j < n->num_outputs(); ++j) {
      Value* v = n->output(j);
      if (v == nullptr || (!v->has_uses() && !v->is_graph_output())) continue;
      std::set<size_t> readers;
      for (const Use& u : v->uses()) {
        auto it = task_of.find(g.AncestorIn(u.node));
        if (it != task_of.end() && it->second != i) readers.insert(it->second);
      }
      if (!readers.empty() || v->is_graph_output()) read_outputs.insert(j);
      if (!v->has_uses()) continue;
      TraceValue out{v->name(), sizes.Of(v), "hbm", readers.size()};
      if (out.reader_tasks > 0 && out.bytes) totals.hbm_bytes += *out.bytes * (1 + out.reader_tasks);
      task.outputs.push_back(std::move(out));
    }
    CountFormatConversions(target, n, read_outputs, totals);
    totals.launches += task.estimate.launches;
    totals.hbm_values += task.outputs.size();
    totals.on_chip_values += task.on_chip.size();
    trace.tasks.push_back(std::move(task));
  }
  totals.tasks = trace.tasks.size();
  totals.barriers = trace.barriers.size();
  totals.seconds = clock;
  return trace;
}

nlohmann::json TraceEventsJson(const TargetTrace& trace, const std::string& model_name) {
  auto tid = [&](const std::string& engine) {
    auto it = std::find(trace.engines.begin(), trace.engines.end(), engine);
    return static_cast<int>(it - trace.engines.begin()) + 1;
  };
  nlohmann::json events = nlohmann::json::array();
  events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 0}, {"tid", 0},
                    {"args", {{"name", "kiln target " + trace.target}}}});
  for (size_t e = 0; e < trace.engines.size(); ++e) {
    int t = static_cast<int>(e) + 1;
    events.push_back(
        {{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", t}, {"args", {{"name", trace.engines[e]}}}});
    events.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", 0}, {"tid", t},
                      {"args", {{"sort_index", t}}}});
  }
  for (size_t i = 0; i < trace.tasks.size(); ++i) {
    const TraceTask& task = trace.tasks[i];
    const Estimate& e = task.estimate;
    nlohmann::json args = {{"index", i},
                           {"op", task.op},
                           {"engine", task.engine},
                           {"kernels", task.kernels},
                           {"fused", task.fused},
                           {"launches", e.launches},
                           {"seconds", task.seconds},
                           {"compute_seconds", e.compute_seconds},
                           {"memory_seconds", e.memory_seconds},
                           {"launch_seconds", e.launch_seconds},
                           {"barrier_seconds", e.barrier_seconds},
                           {"barriers_inside", e.barriers},
                           {"flops", e.flops},
                           {"offchip_bytes", e.offchip_bytes},
                           {"onchip_bytes", e.onchip_bytes},
                           {"inputs", ValuesJson(task.inputs)},
                           {"outputs", ValuesJson(task.outputs)},
                           {"on_chip", ValuesJson(task.on_chip)}};
    if (!e.reason.empty()) args["note"] = e.reason;
    events.push_back({{"name", task.name},
                      {"cat", task.fused ? "fused" : "task"},
                      {"ph", "X"},
                      {"ts", Micros(task.start)},
                      {"dur", Micros(task.seconds)},
                      {"pid", 0},
                      {"tid", tid(task.engine)},
                      {"args", std::move(args)}});
  }
  for (const TraceBarrier& b : trace.barriers) {
    events.push_back({{"name", "barrier " + b.from + " -> " + b.to},
                      {"cat", "barrier"},
                      {"ph", "i"},
                      {"s", "t"},
                      {"ts", Micros(b.start)},
                      {"pid", 0},
                      {"tid", tid(b.to)},
                      {"args",
                       {{"from", b.from}, {"to", b.to}, {"seconds", b.seconds}, {"before_task", b.before_task}}}});
  }
  nlohmann::json other = {
      {"producer", "kiln"},
      {"model", model_name},
      {"target", trace.target},
      {"plugin", trace.plugin},
      {"engines", trace.engines},
      {"totals", TraceTotalsJson(trace)},
      {"notes",
       {"ts and dur are estimated microseconds on one stream: each task starts when the previous one ends, after "
        "the barrier between them if the target charges one",
        "memory: a value produced and read inside one fused call is on-chip; a value a task writes is in HBM",
        "hbm_bytes counts each value passed between tasks once for its write and once per task reading it",
        "bytes count every dimension that is not a number (a symbol such as batch, or unknown) as 1: " +
            std::to_string(trace.totals.symbolic_dims) + " such dimension(s) here, and " +
            std::to_string(trace.totals.values_without_size) + " value(s) of unknown type or rank have no bytes",
        "nodes the target places on the host engine are not tasks",
        "format_conversions: inputs and outputs of tasks in a format the target prefers other than ND (constants "
        "excepted), which the device converts (TransData); not in the stream"}}};
  return {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}, {"otherData", std::move(other)}};
}

nlohmann::json TraceTotalsJson(const TargetTrace& trace) {
  const TraceTotals& t = trace.totals;
  std::map<std::string, std::pair<size_t, double>> per_engine;  // tasks, seconds
  for (const TraceTask& task : trace.tasks) {
    auto& [count, seconds] = per_engine[task.engine];
    ++count;
    seconds += task.seconds;
  }
  nlohmann::json by_engine = nlohmann::json::object();
  for (const auto& [engine, stats] : per_engine)
    by_engine[engine] = {{"tasks", stats.first}, {"seconds", stats.second}};
  return {{"tasks", t.tasks},
          {"launches", t.launches},
          {"barriers", t.barriers},
          {"hbm_bytes", t.hbm_bytes},
          {"estimated_seconds", t.seconds},
          {"host_nodes", t.host_nodes},
          {"hbm_values", t.hbm_values},
          {"on_chip_values", t.on_chip_values},
          {"symbolic_dims_counted_as_1", t.symbolic_dims},
          {"format_conversions", t.format_conversions},
          {"format_conversion_seconds", t.format_conversion_seconds},
          {"format_conversions_unpriced", t.format_conversions_unpriced},
          {"by_engine", std::move(by_engine)}};
}

}  // namespace kiln::target
