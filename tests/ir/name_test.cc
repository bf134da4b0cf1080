// kiln::Name: names of every length up to and past the 15 kept in place read back whole and NUL-terminated through
// copies, moves and assignments (an assignment from a view into the name itself included), and compare, order,
// hash and concatenate as the same text in a std::string does.
#include "ir/name.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <unordered_set>
#include <utility>

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

}  // namespace
}  // namespace kiln
