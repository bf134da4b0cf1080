// The arena planners and the lower bound (plugins/memory/arena_planner.h) on hand-made live ranges.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "arena_planner.h"

namespace kiln::memory {
namespace {

// No two intervals live at one step share a byte; every offset is aligned and inside the arena.
::testing::AssertionResult Valid(const std::vector<Interval>& b, const ArenaPlan& p) {
  if (p.offsets.size() != b.size()) return ::testing::AssertionFailure() << "one offset per interval";
  if (p.arena % kAlignment) return ::testing::AssertionFailure() << "arena " << p.arena << " is not aligned";
  for (size_t i = 0; i < b.size(); ++i) {
    if (p.offsets[i] % kAlignment) return ::testing::AssertionFailure() << "offset " << i << " is not aligned";
    if (p.offsets[i] + b[i].size > p.arena) return ::testing::AssertionFailure() << "interval " << i << " overflows";
    for (size_t j = i + 1; j < b.size(); ++j) {
      const bool in_time = b[i].first <= b[j].last && b[j].first <= b[i].last;
      const bool in_space = b[i].size && b[j].size && p.offsets[i] < p.offsets[j] + b[j].size &&
                            p.offsets[j] < p.offsets[i] + b[i].size;
      if (in_time && in_space)
        return ::testing::AssertionFailure() << p.algorithm << ": intervals " << i << " and " << j << " overlap";
    }
  }
  return ::testing::AssertionSuccess();
}

// 1 to `most` intervals: each first step in [lo, lo + steps), lasting up to `length` - 1 steps more, of up to
// `bytes` - 1 bytes.
std::vector<Interval> RandomIntervals(std::mt19937& rng, int most, int64_t lo, int64_t steps, int64_t length,
                                      uint64_t bytes) {
  std::vector<Interval> b;
  const int n = 1 + static_cast<int>(rng() % most);
  for (int i = 0; i < n; ++i) {
    const int64_t first = lo + static_cast<int64_t>(rng() % steps);
    b.push_back({rng() % bytes, first, first + static_cast<int64_t>(rng() % length)});
  }
  return b;
}

TEST(ArenaPlanner, LowerBoundIsTheHeaviestStepOfAlignedSizes) {
  // step:      0    1    2    3
  // a 100     [----------]            aligned 128
  // b 64           [----------]       64
  // c 1000              [-----]       1024
  // d 1       [-]                     64
  std::vector<Interval> b = {{100, 0, 2}, {64, 1, 3}, {1000, 2, 3}, {1, 0, 0}};
  EXPECT_EQ(LowerBound(b), 128u + 64 + 1024);  // step 2
  EXPECT_EQ(PeakLiveBytes(b), 100u + 64 + 1000);
  EXPECT_EQ(LowerBound({}), 0u);
}

// Both bounds against the sum at each step, on random ranges (steps below zero among them).
TEST(ArenaPlanner, TheBoundsAreTheLargestSumAtOneStep) {
  std::mt19937 rng(20261207);
  for (int round = 0; round < 200; ++round) {
    const std::vector<Interval> b = RandomIntervals(rng, 30, -10, 40, 12, 100000);
    uint64_t aligned = 0, raw = 0;
    for (int64_t s = -10; s < 52; ++s) {
      uint64_t a = 0, r = 0;
      for (const Interval& x : b)
        if (x.first <= s && s <= x.last) a += AlignUp(x.size), r += x.size;
      aligned = std::max(aligned, a);
      raw = std::max(raw, r);
    }
    ASSERT_EQ(LowerBound(b), aligned) << "round " << round;
    ASSERT_EQ(PeakLiveBytes(b), raw) << "round " << round;
  }
}

TEST(ArenaPlanner, RangesThatTouchAtAStepAreBothLiveThere) {
  // a is read at step 1, where b is written: they may not share memory.
  std::vector<Interval> b = {{64, 0, 1}, {64, 1, 2}};
  EXPECT_EQ(LowerBound(b), 128u);
  for (const ArenaPlan& p : {GreedyBySize(b), GreedyByBreadth(b), BestFit(b)}) {
    EXPECT_TRUE(Valid(b, p));
    EXPECT_EQ(p.arena, 128u) << p.algorithm;
  }
}

TEST(ArenaPlanner, AChainReusesOneBlockPair) {
  std::vector<Interval> b;
  for (int64_t i = 0; i < 100; ++i) b.push_back({4096, i, i + 1});
  EXPECT_EQ(LowerBound(b), 8192u);
  for (const ArenaPlan& p : {GreedyBySize(b), GreedyByBreadth(b), BestFit(b)}) {
    EXPECT_TRUE(Valid(b, p));
    EXPECT_EQ(p.arena, 8192u) << p.algorithm;
  }
}

TEST(ArenaPlanner, GreedyBySizeFillsAGapBelowAPlacedBuffer) {
  // X (steps 0-1) is placed first at 0 and Y (1-3) above it; Z and W (2-3) meet Y only, so they go into the hole
  // X leaves below Y, one above the other, and the arena stays at the lower bound.
  std::vector<Interval> b = {{4096, 0, 1}, {2048, 1, 3}, {1024, 2, 3}, {512, 2, 3}};
  ArenaPlan p = GreedyBySize(b);
  EXPECT_TRUE(Valid(b, p));
  EXPECT_EQ(p.offsets, (std::vector<uint64_t>{0, 4096, 0, 1024}));
  EXPECT_EQ(p.arena, 6144u);
  EXPECT_EQ(LowerBound(b), 6144u);
}

TEST(ArenaPlanner, GreedyByBreadthPacksTheHeaviestStepFirst) {
  // step:   0   1   2   3   4
  // A 256  [-]
  // B  64          [---------]
  // C 256                  [-]
  // D 256  [---------]
  // By size: A at 0, D at 256, C at 0 (it meets neither), and B, meeting C and D, finds no gap: 512 + 64.
  // By breadth: step 0 (A, D) first, then step 2 puts B below D, and step 4 puts C above B: the lower bound.
  std::vector<Interval> b = {{256, 0, 0}, {64, 2, 4}, {256, 4, 4}, {256, 0, 2}};
  EXPECT_EQ(LowerBound(b), 512u);
  ArenaPlan size = GreedyBySize(b), breadth = GreedyByBreadth(b);
  EXPECT_TRUE(Valid(b, size));
  EXPECT_TRUE(Valid(b, breadth));
  EXPECT_EQ(size.arena, 576u);
  EXPECT_EQ(breadth.arena, 512u);
  EXPECT_EQ(PlanArena(b).algorithm, "greedy_by_breadth");
}

TEST(ArenaPlanner, PlanArenaKeepsTheSmallestOfAll) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    const std::vector<Interval> b = RandomIntervals(rng, 60, 0, 40, 8, 5000);
    std::vector<PlannerResult> tried;
    ArenaPlan p = PlanArena(b, &tried);
    ASSERT_EQ(tried.size(), 3u);
    const ArenaPlan each[] = {GreedyBySize(b), GreedyByBreadth(b), BestFit(b)};
    for (size_t i = 0; i < 3; ++i) {
      EXPECT_EQ(tried[i].algorithm, each[i].algorithm);
      EXPECT_EQ(tried[i].arena, each[i].arena);
    }
    EXPECT_TRUE(Valid(b, p));
    EXPECT_EQ(p.arena, std::min({tried[0].arena, tried[1].arena, tried[2].arena}));
    // The first planner of the smallest arena's, offsets and all.
    const ArenaPlan* first_best = &each[0];
    for (const ArenaPlan& e : each)
      if (e.arena < first_best->arena) first_best = &e;
    EXPECT_EQ(p.algorithm, first_best->algorithm);
    EXPECT_EQ(p.offsets, first_best->offsets);
    EXPECT_GE(p.arena, LowerBound(b));
  }
}

}  // namespace
}  // namespace kiln::memory
