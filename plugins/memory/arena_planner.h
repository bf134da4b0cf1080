// Offsets in one arena for buffers with known sizes and live ranges (the plain C++ part of the memory plugin; no
// SDK types, so tests call it directly).
//
// A buffer occupies [offset, offset + size) from the start of step `first` to the end of step `last` (inclusive).
// Two buffers whose step ranges intersect must not share a byte. Every offset is a multiple of kAlignment, and the
// arena's size is rounded up to one, so each buffer in effect takes AlignUp(size) bytes.
//
// The lower bound. At any step, the buffers live there are disjoint aligned blocks inside the arena, so the arena
// is at least the largest sum of AlignUp(size) over the buffers live at one step (the heaviest clique of the
// interval graph). LowerBound computes it with one sweep over the steps; no plan can beat it.
//
// The planners (heuristics all; PlanArena keeps the smallest arena, the earlier in this list on a tie):
//   greedy_by_size     TensorFlow Lite's GreedyBySize: buffers largest first (ties: earlier first step); each goes
//                      into the smallest gap between the already placed buffers that overlap it in time, or above
//                      the highest of them.
//   greedy_by_breadth  TensorFlow Lite's GreedyByBreadth: the same placement, but the buffers of the step with the
//                      most live bytes first (largest first), then those of the next heaviest step, and so on; it
//                      packs the peak step tightly, where greedy-by-size can leave a hole (LLaMA's attention).
//   best_fit           an allocator replayed in schedule order: at each buffer's first step the buffers that ended
//                      before it are freed, and it takes the smallest free gap that fits, else the top of the arena.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::memory {

inline constexpr uint64_t kAlignment = 64;

inline uint64_t AlignUp(uint64_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

struct Interval {
  uint64_t size = 0;  // bytes
  int64_t first = 0;  // the step that writes it
  int64_t last = 0;   // the last step that reads it (>= first)
};

struct ArenaPlan {
  std::string algorithm;          // "greedy_by_size" or "best_fit"
  uint64_t arena = 0;             // bytes, a multiple of kAlignment
  std::vector<uint64_t> offsets;  // one per interval, in input order
};

// The largest sum of AlignUp(size) over intervals live at one step.
uint64_t LowerBound(const std::vector<Interval>& buffers);
// The largest sum of the sizes themselves (no alignment) live at one step.
uint64_t PeakLiveBytes(const std::vector<Interval>& buffers);

ArenaPlan GreedyBySize(const std::vector<Interval>& buffers);
ArenaPlan GreedyByBreadth(const std::vector<Interval>& buffers);
ArenaPlan BestFit(const std::vector<Interval>& buffers);
// What one planner made of the buffers: its name and its arena's bytes.
struct PlannerResult {
  std::string algorithm;
  uint64_t arena = 0;
};

// Every planner; the smallest arena (the first planner's of equal ones). `tried` (if not null) gets each
// planner's result, in the order above.
ArenaPlan PlanArena(const std::vector<Interval>& buffers, std::vector<PlannerResult>* tried = nullptr);

}  // namespace kiln::memory
