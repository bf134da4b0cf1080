// The task stream a target would run for a compiled model, estimated, and its Chrome trace-event form (what
// `kiln compile --target NAME --trace FILE.json` writes; Perfetto and chrome://tracing open it).
//
// The stream, from the final main graph in topological order and the target's answers:
//   - every node the target places on an engine other than "host" is one task; a call of a model-local function
//     (kiln.fused, as fusion writes them) is one task whose kernels are its body's nodes, estimated as one kernel;
//   - a task's duration is the target's estimate of its node; one stream: a task starts when the previous one
//     ends, plus a barrier when the target's sync_cost(previous engine, this engine) is above 0 (recorded as an
//     event of its own, and counted);
//   - memory: a value produced and read inside one fused call lives on chip; a value a task writes (read by
//     another task, by a host node or as a graph output) lives in HBM. Bytes are element count times element
//     size, a dimension that is not a number (a symbol such as "batch", or unknown) counted as 1; a value whose
//     type or rank is unknown has no byte count;
//   - totals: tasks, launches (the estimates' launches), barriers between tasks, the HBM bytes moved between tasks
//     (each value passed from one task to others counted once for its write and once per task reading it), and
//     the estimated seconds (the end of the last task);
//   - format conversions the graph leaves to the device (GE's TransData, inserted at lowering): every input of a
//     task that the target prefers in a format other than ND (target_preferred_format; "" is any) and other than
//     the one the tensor is stored in (its value annotation "format", GE's StorageFormat, set by TargetFormatPass;
//     ND without one), constants excepted (converted once, offline), and every output so preferred that another
//     task or the graph's outputs read; each costs target_transfer_cost between the two formats. A graph whose ops
//     run in their formats (TargetFormatPass) has none of these: its conversions are tasks of their own. Counted
//     beside the stream, not in it.
// Nodes inside subgraphs of control-flow nodes are not tasks of their own: the node holding them is.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "target/active_target.h"

namespace kiln {
class Model;
}

namespace kiln::target {

struct TraceValue {
  std::string name;
  std::optional<uint64_t> bytes;  // none when the value's type or rank is unknown
  std::string memory;             // "hbm" or "on-chip"
  size_t reader_tasks = 0;        // tasks (other than its producer) that read it; on-chip values: 0
};

struct TraceTask {
  std::string name;                  // the node's name, or "Op#n" for an unnamed node
  std::string op;                    // "MatMul", or "kiln.fused.Fused_0" for a call
  std::string engine;
  std::vector<std::string> kernels;  // op types ("MatMul"); a call's body nodes, in their order
  bool fused = false;                // a call of a model-local function
  double start = 0, seconds = 0;     // estimated
  Estimate estimate;
  std::vector<TraceValue> inputs;    // values it reads (from HBM: graph inputs, weights, other nodes' outputs)
  std::vector<TraceValue> outputs;   // values it writes to HBM
  std::vector<TraceValue> on_chip;   // a call's intermediates
};

struct TraceBarrier {
  std::string from, to;  // engines
  double start = 0, seconds = 0;
  size_t before_task = 0;  // the index of the task it precedes
};

struct TraceTotals {
  size_t tasks = 0, launches = 0, barriers = 0;
  uint64_t hbm_bytes = 0;      // moved between tasks
  double seconds = 0;          // the end of the last task
  size_t host_nodes = 0;       // nodes on the host engine (no task)
  size_t on_chip_values = 0, hbm_values = 0;
  size_t values_without_size = 0;  // values whose bytes are unknown
  size_t symbolic_dims = 0;        // dimensions counted as 1
  size_t format_conversions = 0;   // left to the device (see above)
  double format_conversion_seconds = 0;
  size_t format_conversions_unpriced = 0;  // of those, the ones the target could not price (unknown rank)
};

struct TargetTrace {
  std::string target, plugin;
  std::vector<std::string> engines;
  std::vector<TraceTask> tasks;
  std::vector<TraceBarrier> barriers;
  TraceTotals totals;
};

// The stream of `model`'s main graph on `target`. Throws plugin::SlotError when a target callback fails, and
// kiln::Error (invalid model) when the graph has a cycle.
TargetTrace BuildTrace(Model& model, const PluginTarget& target);

// {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}: an "M" event naming the process and one
// naming each engine's thread (tid = the engine's index + 1), an "X" event per task (ts and dur in microseconds,
// pid 0, args: op, kernels, engine, launches, the estimate, and the bytes and memory of its inputs, outputs and
// on-chip values), an "i" event per barrier (on the thread of the engine after it, args: from, to, seconds), and
// otherData with the target, the totals and notes on how they were counted. `model_name` goes to otherData.
nlohmann::json TraceEventsJson(const TargetTrace& trace, const std::string& model_name);

// The report's summary: {"tasks", "launches", "barriers", "hbm_bytes", "estimated_seconds", "host_nodes",
// "by_engine": {engine: {"tasks", "seconds"}}}.
nlohmann::json TraceTotalsJson(const TargetTrace& trace);

}  // namespace kiln::target
