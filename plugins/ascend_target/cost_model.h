// cost_model.h - the analytic cost model of an Ascend target: which engine runs a node, what a node or a fused
// group costs, barriers, format conversions and preferred formats. Plain C++ over TargetDescription and OpNode.
//
// Engine of a node: engine_rules.overrides[op], else the engine of the op's class (op_classes.*.ops), else
// engine_rules.default_engine (GE's fallback: an op without an AI Core kernel runs on the AI CPU). Two rules then
// move a node: topk_large_k (TopK whose constant k >= min_k) and small_int_to_host (a node of one of the listed
// classes whose outputs are all of the listed integer types, of known shape, with at most max_elements elements:
// shape arithmetic, GE's HostcpuEngineUpdatePass).
//
// One node, a roofline on its engine:
//   compute = FLOPs / peak(engine, element type)     (op_counting.h counts the FLOPs; the element type is the
//             cube input's for cube rules, else the widest of the node's tensors; a type without its own rate
//             takes its same-width kin's, then the engine's "any", then the engine's slowest, with a note)
//   memory  = bytes of every tensor it reads and writes / off-chip bandwidth
//   seconds = max(compute, memory) + launch
// Host-engine nodes (runs_on: host) cost 0 launches and no memory traffic; views and constants cost nothing.
//
// A group fused into one kernel (the nodes in topological order; a call's body is expanded by the caller):
//   compute  = the sum over the group's engine runs (maximal stretches of one engine along the order, views
//              skipped) of the nodes' compute; engines run one after another (conservative: a double-buffered
//              cube/vector pipeline could overlap them, CAT-CV).
//   memory   = only the group's external inputs (read but not produced inside; Constant nodes' outputs count
//              here) and external outputs (read outside, or read by nothing inside) at the off-chip bandwidth.
//              Intermediates stay on chip; on a split AI Core (sync.cube_to_vector: via_gm) a cube result reaches
//              the vector cores through a GM workspace that L2 serves and the pipeline overlaps, so it is not
//              charged as off-chip traffic.
//   barriers = one per switch between consecutive runs whose engines sync.barriers pairs, at its cost.
//   seconds  = max(compute, memory) + one launch + barriers.
// A group is not feasible (feasible = 0, with the reason) when it mixes a node of an engine that does not fuse
// (AI CPU) or that runs on the host with other nodes, or when its tile working set exceeds the tile buffer.
//
// The tile model (tile_model in the YAML; why: a fused vector kernel streams tiles through the Unified Buffer,
// and what must be resident at once is one tile of every tensor its vector part touches):
//   R        = the longest reduction row of the group's tile-engine nodes (op_counting.h: a reduction, norm,
//              softmax or global pool needs its whole row resident for one pass), 0 when there is none.
//   tile(t)  = round_up(max(min(elements(t), R) * elem_bytes(t), min_tile), block) for every distinct tensor t
//              read or written by a tile-engine node (a view's output is its input's tensor; small integer
//              constants such as axes or k are kernel parameters and not counted); times double_buffer
//              for a tensor streamed in or out - an external input or output of the group, or a tensor passed
//              between a tile engine and another engine (the cube). min_tile is one vector repeat (256 B, HA-VEC), block the UB granule
//              (32 B); R caps per-row tensors and counts a broadcast parameter of row length whole. It
//              over-counts a reduced output (it gets a row-sized tile though it needs one element per row), which
//              keeps the check conservative.
//   capacity = the tile buffer's size less tile_model.reserved.
//   onchip_bytes = the sum of tiles, plus, for cube nodes, the largest fractal step (16 x C0 of A, C0 x 16 of
//              B, 16 x 16 four-byte accumulators in L0C).
// A single node is always feasible; when its row alone does not fit, the reason notes that the kernel needs
// several passes.
//
// Symbolic dimensions count as assumptions.symbolic_dim and the reason says so.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "op_counting.h"
#include "op_node.h"
#include "target_description.h"

namespace kiln::ascend {

// KilnCostEstimate as plain data.
struct Cost {
  double seconds = 0, compute_seconds = 0, memory_seconds = 0, launch_seconds = 0, barrier_seconds = 0;
  uint64_t flops = 0, offchip_bytes = 0, onchip_bytes = 0;
  uint32_t launches = 0, barriers = 0;
  bool feasible = true;
  std::string engine;
  std::string reason;
};

class CostModel {
 public:
  explicit CostModel(TargetDescription description);
  CostModel(const CostModel&) = delete;  // class_of_ points into d_
  CostModel& operator=(const CostModel&) = delete;
  const TargetDescription& description() const { return d_; }

  // The class listing the node's op; nullptr when none does.
  const OpClass* ClassOf(const OpNode& n) const;
  std::string EngineOf(const OpNode& n) const;
  Cost EstimateNode(const OpNode& n) const;
  // Nodes in topological order; one node is estimated as a group too (a call's body of one node).
  Cost EstimateGroup(const std::vector<OpNode>& nodes) const;
  // Seconds of the barrier between engines (0 within one engine or for a pair sync.barriers does not list);
  // std::invalid_argument for a name that is not an engine.
  double SyncCost(std::string_view from, std::string_view to) const;
  // A format conversion as a memory-bound copy (one kernel): bytes in the source layout read plus bytes in the
  // destination layout written, at the off-chip bandwidth, plus a launch. "" is ND. std::invalid_argument for a
  // format the target does not support or a tensor the format cannot hold.
  double TransferCost(const TensorInfo& t, std::string_view from, std::string_view to) const;
  // Bytes of t stored in format (padding included): NC1HWC0 pads C to C0 (by element type, formats.c0), FRACTAL_Z
  // pads Cin to C0 and Cout to 16, FRACTAL_NZ pads the last two dimensions to 16 (rows) and C0 (columns).
  double FormatBytes(const TensorInfo& t, std::string_view format) const;
  // The dims of t stored in format (GE's StorageShape; -1 stays -1 and makes what it pads or multiplies -1):
  //   ND and the plain layouts (NCHW, NHWC, NCDHW, NDHWC): t's own dims
  //   NC1HWC0 (rank >= 3): N, C1, spatial..., C0 with C1 = ceil(C / C0), C0 by element type (formats.c0)
  //   NC1HWC0_C04: the same with C0 = 4;  NDC1HWC0 (rank 5, NCDHW): N, D, C1, H, W, C0
  //   FRACTAL_Z (rank >= 3, Cout Cin kernel...): C1 * kernel..., N1, 16, C0 with N1 = ceil(Cout / 16)
  //   FRACTAL_Z_3D (rank 5, Cout Cin D H W): D * C1 * H * W, N1, 16, C0
  //   FRACTAL_NZ (rank >= 1; a vector is one row): batch..., ceil(cols / C0), ceil(rows / 16), 16, C0
  // std::invalid_argument for a format the target does not support, an unknown rank, or a rank the format cannot
  // hold.
  std::vector<int64_t> StorageShape(const TensorInfo& t, std::string_view format) const;
  // From the node's class (formats.inputs / outputs by index, "any" -> "", past the end -> "ND"), adapted to the
  // tensor's rank: NC1HWC0 -> NDC1HWC0 and FRACTAL_Z -> FRACTAL_Z_3D for 5-D tensors; "ND" for a tensor the
  // format cannot hold or a format the target lacks.
  std::string PreferredFormat(const OpNode& n, bool is_output, size_t index) const;

 private:
  struct NodeCost {
    const Engine* engine = nullptr;
    CostRule rule = CostRule::kInputElements;
    double flops = 0, compute = 0, bytes = 0;
  };
  NodeCost CostOf(const OpNode& n, Notes& notes) const;
  double RateOf(const Engine& e, int32_t elem_type, Notes& notes) const;
  double LaunchOf(const Engine& e) const;
  double C0Of(int32_t elem_type) const;
  // The tile working set of nodes on the tile engines (see above); *row gets R, *row_node the node that sets it.
  double WorkingSet(const std::vector<const OpNode*>& nodes, const std::vector<NodeCost>& costs,
                    const std::set<std::string>& external, Notes& notes, double* row, std::string* row_node) const;
  double TileCapacity() const;
  bool IsTileEngine(const Engine* e) const;

  TargetDescription d_;
  std::map<std::string, const OpClass*, std::less<>> class_of_;
};

}  // namespace kiln::ascend
