// Lists of items grouped by a number in [0, groups), held as one array cut at start[g] ("compressed rows"): a
// vector per group took 24 bytes and a heap block for each (a buffer list per step, a reader list per node: tens of
// MB of MemoryPlanningPass's peak on the 1M-node chain). Plain C++, for the planners and the order alike.
#pragma once

#include <cstddef>
#include <numeric>
#include <span>
#include <vector>

namespace kiln::memory {

template <typename Item>
struct GroupedLists {
  std::vector<size_t> start{0};  // group g's items are items[start[g], start[g + 1])
  std::vector<Item> items;

  std::span<const Item> operator[](size_t g) const { return {items.data() + start[g], start[g + 1] - start[g]}; }
  std::span<Item> operator[](size_t g) { return {items.data() + start[g], start[g + 1] - start[g]}; }

  // Groups what `each` gives: each(emit) calls emit(group, item) for every item, the same items both times it is
  // called (once to count them, once to place them). Each group keeps its items in the order they came.
  template <typename Each>
  static GroupedLists Build(size_t groups, Each&& each) {
    GroupedLists l;
    l.start.assign(groups + 1, 0);
    each([&](size_t g, const Item&) { ++l.start[g + 1]; });
    std::partial_sum(l.start.begin(), l.start.end(), l.start.begin());
    l.items.resize(l.start[groups]);
    std::vector<size_t> next(l.start.begin(), l.start.end() - 1);
    each([&](size_t g, const Item& item) { l.items[next[g]++] = item; });
    return l;
  }
};

}  // namespace kiln::memory
