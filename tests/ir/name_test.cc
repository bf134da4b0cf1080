// kiln::Name: names of every length up to and past the 15 kept in place read back whole and NUL-terminated through
// copies, moves and assignments (an assignment from a view into the name itself included), and compare, order,
// hash and concatenate as the same text in a std::string does; names kept in a NameArena read back the same, pack
// their text one after another, and leave a heap copy when copied.
#include "ir/name.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include <sstream>
#include <string>
#include <unordered_set>
#include <utility>

#include "ir/name_arena.h"

namespace kiln {
namespace {

std::string Text(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s.push_back(static_cast<char>('a' + i % 26));
  return s;
}

TEST(Name, EveryLengthReadsBackWholeAndTerminated) {
  for (size_t n : {0, 1, 14, 15, 16, 17, 31, 100, 5000}) {
    const std::string s = Text(n);
    const Name a(s);
    EXPECT_EQ(a.size(), n);
    EXPECT_EQ(a.empty(), n == 0);
    EXPECT_EQ(a.view(), s);
    EXPECT_EQ(std::string(a.c_str()), s) << "NUL after " << n;
    Name copy(a);
    Name moved(std::move(copy));
    EXPECT_EQ(moved, a);
    EXPECT_TRUE(copy.empty());  // NOLINT: a moved-from name is empty
    Name assigned;
    assigned = a;
    EXPECT_EQ(assigned.view(), s);
    assigned = Name(Text(n + 20));
    EXPECT_EQ(assigned.view(), Text(n + 20));
    assigned = assigned.view().substr(n / 2);  // a view into itself
    EXPECT_EQ(assigned.view(), Text(n + 20).substr(n / 2));
    assigned = assigned;  // NOLINT: self-assignment
    EXPECT_EQ(assigned.view(), Text(n + 20).substr(n / 2));
    EXPECT_EQ(static_cast<std::string>(a), s);
  }
}

TEST(Name, ComparesOrdersHashesAndConcatenatesAsItsText) {
  const Name a("layers.0/Add_output_0"), b("layers.0/Mul"), c("x");
  EXPECT_TRUE(a == "layers.0/Add_output_0");
  EXPECT_TRUE(a == std::string("layers.0/Add_output_0"));
  EXPECT_TRUE(a != b);
  EXPECT_TRUE(a < b);
  EXPECT_TRUE(c > "w");
  EXPECT_TRUE(std::string_view("y") > c);
  EXPECT_EQ(std::hash<Name>()(a), std::hash<std::string_view>()("layers.0/Add_output_0"));
  std::unordered_set<Name> set = {a, b};
  EXPECT_EQ(set.count(Name("layers.0/Mul")), 1u);
  EXPECT_EQ("<" + c + ">", "<x>");
  EXPECT_EQ(c + std::string("y") + 'z', "xyz");
  EXPECT_EQ(c + c, "xx");
  EXPECT_EQ(a.substr(9), "Add_output_0");
  EXPECT_EQ(a.rfind('_'), 19u);
  EXPECT_TRUE(a.starts_with("layers."));
  std::ostringstream os;
  os << b;
  EXPECT_EQ(os.str(), "layers.0/Mul");
}

TEST(Name, InAnArenaReadsBackAsOnTheHeapAndItsCopiesOwnTheirText) {
  NameArena arena;
  std::vector<Name> names;
  // Past the first blocks' sizes and past the largest block's quarter, so that new blocks and a block of one's own
  // are both met.
  const std::vector<size_t> lengths = {0, 1, 15, 16, 27, 100, 5000, 70000, 16, 27};
  for (int round = 0; round < 200; ++round)
    for (size_t n : lengths) names.emplace_back(Text(n + round % 3), arena);
  size_t i = 0;
  for (int round = 0; round < 200; ++round)
    for (size_t n : lengths) {
      const Name& a = names[i++];
      ASSERT_EQ(a.view(), Text(n + round % 3));
      ASSERT_EQ(std::strlen(a.c_str()), n + round % 3) << "NUL after " << n + round % 3;
      ASSERT_EQ(a, Name(Text(n + round % 3)));
    }
  // A copy (and an assignment) holds text of its own: it outlives the arena's block. A move keeps the arena's.
  Name copy = names[5];
  Name assigned;
  assigned = names[6];
  Name moved = std::move(names[4]);
  EXPECT_TRUE(names[4].empty());  // NOLINT: a moved-from name is empty
  EXPECT_NE(copy.data(), names[5].data());
  EXPECT_EQ(moved.view(), Text(27));
  names.clear();  // destroying arena names frees nothing: the arena does
  EXPECT_EQ(copy.view(), Text(100));
  EXPECT_EQ(assigned.view(), Text(5000));
  // Short names stay in place and take nothing of the arena; long ones are packed end to end.
  NameArena packed;
  Name a(Text(15), packed), b(Text(20), packed), c(Text(20), packed);
  EXPECT_EQ(packed.reserved_bytes(), 4096u);
  EXPECT_EQ(c.data(), b.data() + 21);
}

}  // namespace
}  // namespace kiln
