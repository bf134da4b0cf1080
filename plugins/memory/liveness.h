// Liveness of a model's intermediates over a schedule, and the buffers they need once in-place reuse is applied.
//
// The schedule. The main graph's nodes run in the given order; a node that holds subgraphs (If, Loop, Scan) first
// runs its subgraphs' nodes (each subgraph in turn, in its own topological order, recursively) and then takes a
// step of its own, which is when its outputs are written. Every node thus has one step, and a holder's step comes
// after every step inside it.
//
// Intermediates. Every node output of the main graph or of a subgraph, except constants (initializers and
// Constant outputs) and absent optional outputs. Graph inputs and initializers are not intermediates (the caller
// owns them), nor are a subgraph's inputs (its holder supplies them). A call of a model-local function is one node:
// its body's values are its own business.
//
// Live range [first, last]. `first` is the producer's step. `last` is the latest step of a reader, where a reader
// inside a subgraph counts as the node of the value's own graph that holds it (a value read inside an If or Loop
// body lives until that If or Loop ends). A main-graph output lives to the last step; a subgraph's output until its
// holder's step (the holder reads it there). A value nothing reads lives at its own step only.
//
// Sizes. A tensor whose element type has a fixed size and whose shape the host inferred with every dimension a
// number: elements x element bytes. Anything else is unplanned, with the reason (a symbolic dimension, no inferred
// shape, a string tensor, a sequence), and takes no part in reuse.
//
// In-place reuse (why it is correct). Values are assigned to buffers in step order:
//   view      the output of Reshape, Squeeze, Unsqueeze, Flatten or Identity is its input's bytes under another
//             shape: it joins the input's buffer, whose range grows to cover it (nothing writes a buffer while a
//             view of it is live, because of the rule below);
//   in-place  an element-wise op (unary, or n-ary whose output has the input's element type and element count,
//             which for broadcasting means the same row-major layout) may write its output over an input whose
//             buffer is read for the last time at this node: element i is read before it is written, and no
//             other value of that buffer (a view included) is read after this step. Buffers holding the model's
//             output are never overwritten, and an outer value read inside a Loop body never dies at a body node
//             (its range runs to the Loop's step), so iterations never see clobbered inputs.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "arena_planner.h"

namespace kiln::memory {

// How a value came to share a buffer with an earlier one (see "In-place reuse" above).
enum class Reuse : uint8_t { kNone, kView, kInPlace };
// "", "view" or "in-place": the plan's JSON spelling.
std::string_view ReuseName(Reuse r);

// One per intermediate, and a 1M-node graph has as many: 48 bytes, its names read from `value` when a plan is
// written (the plan is written while the graph is unchanged), its reason for being unplanned kept once per distinct
// reason. Holding two names, two reuse strings and a reason string took 136 bytes and the 1M-node chain's O2 peak
// up by 60-75 MB in this pass.
struct LiveValue {
  sdk::Value value;
  uint64_t bytes = 0;
  int64_t first = 0, last = 0;
  int32_t buffer = -1;     // index into Liveness::buffers; -1 when unplanned
  int32_t reuse_of = -1;   // index into Liveness::values of the value whose buffer it joined; -1 when none
  int32_t unplanned = -1;  // index into Liveness::reasons: why it is not in the arena; -1 when it is
  Reuse reuse = Reuse::kNone;

  bool planned() const { return unplanned < 0; }
};

struct Liveness {
  std::vector<LiveValue> values;
  std::vector<Interval> buffers;       // one per buffer: its size and the union of its values' ranges
  std::vector<sdk::Node> schedule;     // the node of each step
  std::vector<std::string> reasons;    // the distinct reasons values are unplanned
  uint64_t intermediate_bytes = 0;     // the planned values' bytes, each in a buffer of its own
  // Tallies of `values`, which stay when the values go (ReleaseValues).
  size_t planned_values = 0, unplanned_values = 0, views = 0, in_place = 0;

  int64_t steps() const { return static_cast<int64_t>(schedule.size()); }
  // Frees `values` (48 bytes an intermediate) for a caller that writes no per-value plan: the arena is planned from
  // `buffers` alone (the 1M-node chain's O2: 16 MB beside the planners' own arrays, the compile's peak).
  void ReleaseValues() { std::vector<LiveValue>().swap(values); }
  const std::string& Reason(const LiveValue& v) const { return reasons[static_cast<size_t>(v.unplanned)]; }
};

// A node as a schedule names it: its name, or its op type when it has none.
std::string_view StepLabel(const sdk::Node& n);

// The bytes of a value as the plan counts them; 0 when it cannot be planned (and *why, if not null, says why).
uint64_t PlannedBytes(const sdk::Value& value, std::string* why = nullptr);

// Liveness of the intermediates of `graph` (a main graph) when its nodes run in `order`; with `in_place`, views and
// in-place writes share buffers, else every planned value has a buffer of its own.
Liveness ComputeLiveness(sdk::Graph graph, const std::vector<sdk::Node>& order, bool in_place);

}  // namespace kiln::memory
