// The lower bound and the two planners; see arena_planner.h.
#include "arena_planner.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <utility>

#include "grouped_lists.h"

namespace kiln::memory {
namespace {

template <class SizeOf>
uint64_t HeaviestStep(const std::vector<Interval>& buffers, SizeOf size_of) {
  if (buffers.empty()) return 0;
  int64_t lo = buffers[0].first, hi = buffers[0].last;
  for (const Interval& b : buffers) lo = std::min(lo, b.first), hi = std::max(hi, b.last);
  // The bytes that start at each step less those that ended at the step before, summed step by step: a buffer
  // counts from `first` to `last` inclusive, and one that starts right after another ends does not meet it. One
  // number a step, where sorting an event per start and per end took 32 bytes a buffer (the 1M-node chain's 333k
  // buffers at O2: 11 MB, this pass's peak). Unsigned: every partial sum is the bytes live at a step.
  std::vector<uint64_t> delta(static_cast<size_t>(hi - lo) + 2, 0);
  for (const Interval& b : buffers) {
    const uint64_t bytes = size_of(b);
    delta[static_cast<size_t>(b.first - lo)] += bytes;
    delta[static_cast<size_t>(b.last - lo) + 1] -= bytes;
  }
  uint64_t live = 0, peak = 0;
  for (uint64_t d : delta) peak = std::max(peak, live += d);
  return peak;
}

bool Overlap(const Interval& a, const Interval& b) { return a.first <= b.last && b.first <= a.last; }

// The placed buffers whose steps may meet a query's: buckets of consecutive steps, each listing the buffers that
// touch it, so a query looks at the buffers of its own buckets only (not at every placed buffer).
class StepIndex {
 public:
  explicit StepIndex(const std::vector<Interval>& buffers) : buffers_(buffers), seen_(buffers.size(), 0) {
    int64_t lo = 0, hi = 0;
    for (const Interval& b : buffers) lo = std::min(lo, b.first), hi = std::max(hi, b.last);
    lo_ = lo;
    width_ = std::max<int64_t>(1, (hi - lo + 1 + 4095) / 4096);
    buckets_.resize(static_cast<size_t>((hi - lo) / width_ + 1));
  }
  void Add(size_t i) {
    for (size_t b = Bucket(buffers_[i].first); b <= Bucket(buffers_[i].last); ++b) buckets_[b].push_back(i);
  }
  // The placed buffers that overlap buffer `i` in time.
  std::vector<size_t> Overlapping(size_t i) {
    ++stamp_;
    std::vector<size_t> out;
    for (size_t b = Bucket(buffers_[i].first); b <= Bucket(buffers_[i].last); ++b)
      for (size_t j : buckets_[b])
        if (seen_[j] != stamp_ && Overlap(buffers_[i], buffers_[j])) seen_[j] = stamp_, out.push_back(j);
    return out;
  }

 private:
  size_t Bucket(int64_t step) const { return static_cast<size_t>((step - lo_) / width_); }
  const std::vector<Interval>& buffers_;
  std::vector<uint64_t> seen_;
  uint64_t stamp_ = 0;
  int64_t lo_ = 0, width_ = 1;
  std::vector<std::vector<size_t>> buckets_;
};

}  // namespace

uint64_t LowerBound(const std::vector<Interval>& buffers) {
  return HeaviestStep(buffers, [](const Interval& b) { return AlignUp(b.size); });
}

uint64_t PeakLiveBytes(const std::vector<Interval>& buffers) {
  return HeaviestStep(buffers, [](const Interval& b) { return b.size; });
}

namespace {

// Places the buffers in `order`, each into the smallest gap between the already placed buffers that overlap it in
// time, or above the highest of them.
ArenaPlan PlaceInOrder(const std::vector<Interval>& buffers, const std::vector<size_t>& order, std::string name) {
  ArenaPlan plan{std::move(name), 0, std::vector<uint64_t>(buffers.size(), 0)};
  StepIndex index(buffers);
  for (size_t i : order) {
    const uint64_t need = AlignUp(buffers[i].size);
    std::vector<size_t> near = index.Overlapping(i);
    std::sort(near.begin(), near.end(), [&](size_t a, size_t b) { return plan.offsets[a] < plan.offsets[b]; });
    uint64_t top = 0, best = 0, best_gap = UINT64_MAX;
    for (size_t j : near) {
      if (plan.offsets[j] >= top && plan.offsets[j] - top >= need && plan.offsets[j] - top < best_gap)
        best = top, best_gap = plan.offsets[j] - top;
      top = std::max(top, plan.offsets[j] + AlignUp(buffers[j].size));
    }
    plan.offsets[i] = best_gap == UINT64_MAX ? top : best;
    plan.arena = std::max(plan.arena, plan.offsets[i] + need);
    index.Add(i);
  }
  return plan;
}

bool LargerFirst(const std::vector<Interval>& buffers, size_t a, size_t b) {
  const uint64_t sa = AlignUp(buffers[a].size), sb = AlignUp(buffers[b].size);
  return sa != sb ? sa > sb : buffers[a].first < buffers[b].first;
}

}  // namespace

ArenaPlan GreedyBySize(const std::vector<Interval>& buffers) {
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return LargerFirst(buffers, a, b); });
  return PlaceInOrder(buffers, order, "greedy_by_size");
}

ArenaPlan GreedyByBreadth(const std::vector<Interval>& buffers) {
  if (buffers.empty()) return {"greedy_by_breadth", 0, {}};
  int64_t lo = buffers[0].first, hi = buffers[0].last;
  for (const Interval& b : buffers) lo = std::min(lo, b.first), hi = std::max(hi, b.last);
  const size_t steps = static_cast<size_t>(hi - lo + 1);
  // Buffer and step numbers in 32 bits: no memory holds a graph with four billion of either.
  if (buffers.size() > UINT32_MAX || steps > UINT32_MAX) return GreedyBySize(buffers);
  std::vector<size_t> order;
  order.reserve(buffers.size());
  {
    // The buffers touching each step, in index order, and each step's live bytes.
    std::vector<uint64_t> live(steps, 0);
    for (const Interval& b : buffers)
      for (int64_t s = b.first; s <= b.last; ++s) live[static_cast<size_t>(s - lo)] += AlignUp(b.size);
    GroupedLists<uint32_t> members = GroupedLists<uint32_t>::Build(steps, [&](auto&& emit) {
      for (size_t i = 0; i < buffers.size(); ++i)
        for (int64_t s = buffers[i].first; s <= buffers[i].last; ++s)
          emit(static_cast<size_t>(s - lo), static_cast<uint32_t>(i));
    });
    std::vector<uint32_t> by_breadth(steps);
    std::iota(by_breadth.begin(), by_breadth.end(), uint32_t{0});
    std::stable_sort(by_breadth.begin(), by_breadth.end(), [&](uint32_t a, uint32_t b) { return live[a] > live[b]; });
    std::vector<bool> taken(buffers.size(), false);
    for (uint32_t s : by_breadth) {
      std::span<uint32_t> at_step = members[s];
      std::stable_sort(at_step.begin(), at_step.end(),
                       [&](uint32_t a, uint32_t b) { return LargerFirst(buffers, a, b); });
      for (uint32_t i : at_step)
        if (!taken[i]) taken[i] = true, order.push_back(i);
    }
  }
  return PlaceInOrder(buffers, order, "greedy_by_breadth");
}

ArenaPlan BestFit(const std::vector<Interval>& buffers) {
  ArenaPlan plan{"best_fit", 0, std::vector<uint64_t>(buffers.size(), 0)};
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (buffers[a].first != buffers[b].first) return buffers[a].first < buffers[b].first;
    return AlignUp(buffers[a].size) > AlignUp(buffers[b].size);
  });
  std::multimap<uint64_t, size_t> active;  // offset -> buffer, the blocks in use
  for (size_t i : order) {
    for (auto it = active.begin(); it != active.end();)
      it = buffers[it->second].last < buffers[i].first ? active.erase(it) : std::next(it);
    const uint64_t need = AlignUp(buffers[i].size);
    uint64_t top = 0, best = 0, best_gap = UINT64_MAX;
    for (const auto& [offset, j] : active) {
      if (offset >= top && offset - top >= need && offset - top < best_gap) best = top, best_gap = offset - top;
      top = std::max(top, offset + AlignUp(buffers[j].size));
    }
    plan.offsets[i] = best_gap == UINT64_MAX ? top : best;
    plan.arena = std::max(plan.arena, plan.offsets[i] + need);
    active.emplace(plan.offsets[i], i);
  }
  return plan;
}

ArenaPlan PlanArena(const std::vector<Interval>& buffers, std::vector<PlannerResult>* tried) {
  // One planner at a time, the smallest plan so far kept: three plans held at once, and a copy of the best, took
  // 32 bytes a buffer.
  ArenaPlan best;
  bool any = false;
  for (ArenaPlan (*planner)(const std::vector<Interval>&) : {GreedyBySize, GreedyByBreadth, BestFit}) {
    ArenaPlan plan = planner(buffers);
    if (tried) tried->push_back({plan.algorithm, plan.arena});
    if (!any || plan.arena < best.arena) best = std::move(plan);
    any = true;
  }
  return best;
}

}  // namespace kiln::memory
