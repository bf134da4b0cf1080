// UseList (host/ir/use_list.h): a value's readers, one in place and more on the heap, through additions and
// erasures (order kept, as std::vector::erase does) checked against std::vector, and back to empty and in use again.
#include "ir/use_list.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace kiln {
namespace {

std::vector<Use> Contents(const UseList& l) { return std::vector<Use>(l.begin(), l.end()); }

TEST(UseList, MatchesAVectorThroughAdditionsAndErasures) {
  // Distinct fake node addresses: the list never reads through them.
  std::vector<char> nodes(64);
  auto node = [&](size_t i) { return reinterpret_cast<Node*>(&nodes[i % nodes.size()]); };
  UseList l;
  std::vector<Use> want;
  std::mt19937 rng(5);
  for (uint32_t step = 0; step < 20000; ++step) {
    // Mostly short lists (0..3 readers), now and then a long one.
    const bool long_phase = (step / 1000) % 4 == 3;
    const bool grow = (want.size() < 2 || long_phase) ? rng() % 3 != 0 : rng() % 2 == 0;
    if (grow) {
      l.push_back(node(step), step);
      want.push_back(Use{node(step), step});
    } else if (!want.empty()) {
      const size_t i = rng() % want.size();
      l.erase(l.begin() + i);
      want.erase(want.begin() + static_cast<std::ptrdiff_t>(i));
    }
    ASSERT_EQ(Contents(l), want) << "step " << step;
    ASSERT_EQ(l.size(), want.size());
    ASSERT_EQ(l.empty(), want.empty());
  }
  std::span<const Use> s = l;
  EXPECT_EQ(std::vector<Use>(s.begin(), s.end()), want);
}

TEST(UseList, KeepsOneUseInPlaceAndMovesOntoTheHeapPastIt) {
  Node* a = reinterpret_cast<Node*>(uintptr_t{0x1000});
  Node* b = reinterpret_cast<Node*>(uintptr_t{0x2000});
  UseList l;
  EXPECT_TRUE(l.empty());
  l.push_back(a, 3);
  EXPECT_EQ(l.begin(), reinterpret_cast<const Use*>(&l));  // in place
  EXPECT_EQ(Contents(l), (std::vector<Use>{{a, 3}}));
  l.erase(l.begin());
  EXPECT_TRUE(l.empty());
  l.push_back(a, 0);
  l.push_back(b, 1);  // past the one in place
  EXPECT_NE(l.begin(), reinterpret_cast<const Use*>(&l));
  EXPECT_EQ(Contents(l), (std::vector<Use>{{a, 0}, {b, 1}}));
  l.erase(l.begin());
  l.erase(l.begin());
  EXPECT_TRUE(l.empty());
  l.push_back(b, 7);  // into the heap block kept
  EXPECT_EQ(Contents(l), (std::vector<Use>{{b, 7}}));
  EXPECT_EQ(l.begin()->slot, 7u);
}

}  // namespace
}  // namespace kiln
