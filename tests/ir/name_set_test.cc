// NameSet (host/ir/name_set.h): names counted by holder, built on first use, fresh names that no holder has, and
// reservations that the value taking a fresh name consumes.
#include "ir/name_set.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <random>
#include <string>
#include <vector>

namespace kiln {
namespace {

TEST(NameSet, CountsEachHolderAndFreesANameWithItsLast) {
  int builds = 0;
  NameSet names([&](const auto& add) {
    ++builds;
    for (const std::string& n : std::vector<std::string>{"x", "y", "x"}) add(n);  // x held twice
  });
  names.Note("ignored");  // before the set is built, Note and Forget do nothing: Build collects the holders
  EXPECT_EQ(builds, 0);
  EXPECT_TRUE(names.Contains("x"));
  EXPECT_EQ(builds, 1);
  EXPECT_FALSE(names.Contains("ignored"));
  names.Forget("x");
  EXPECT_TRUE(names.Contains("x"));  // one holder left
  names.Forget("x");
  EXPECT_FALSE(names.Contains("x"));
  names.Note("z");
  EXPECT_TRUE(names.Contains("z"));
  names.Forget("never held");  // nothing to forget: no effect
  EXPECT_TRUE(names.Contains("y"));
  EXPECT_EQ(builds, 1);
}

TEST(NameSet, FreshNamesAreFreeAndReservedUntilTaken) {
  NameSet names([](const auto& add) {
    add("v");
    add("t");
    add("t__1");
  });
  EXPECT_EQ(names.Fresh("u"), "u");  // free: the hint itself
  EXPECT_TRUE(names.Contains("u"));  // reserved at once
  EXPECT_EQ(names.Fresh("u"), "u__1");
  names.Note("u");  // the value taking "u" consumes its reservation: one holder, not two
  names.Forget("u");
  EXPECT_FALSE(names.Contains("u"));
  const std::string t = names.Fresh("t");
  EXPECT_NE(t, "t");
  EXPECT_NE(t, "t__1");  // held names are skipped
  EXPECT_EQ(t.rfind("t__", 0), 0u);
  EXPECT_EQ(names.Fresh("").rfind("v__", 0), 0u);  // an empty hint is "v", which is held
}

// Many names, held and freed in turn: what Contains says follows what is held (the set keys names by a hash of
// their text; these names are distinct, and any two of them sharing a hash would be a 64-bit collision).
TEST(NameSet, FollowsManyHoldersExactly) {
  NameSet names([](const auto& add) {
    for (int i = 0; i < 20000; ++i) add("/layers." + std::to_string(i) + "/Add_output_0");
  });
  ASSERT_TRUE(names.Contains("/layers.0/Add_output_0"));  // builds the set
  for (int i = 0; i < 20000; i += 2) names.Forget("/layers." + std::to_string(i) + "/Add_output_0");
  for (int i = 0; i < 20000; ++i)
    ASSERT_EQ(names.Contains("/layers." + std::to_string(i) + "/Add_output_0"), i % 2 == 1) << i;
  EXPECT_FALSE(names.Contains("/layers.20000/Add_output_0"));
}


// With `holds` answering, the set is never built: Contains and Fresh ask it, reservations count until a value takes
// them. Once it answers nullopt (the tree gained a subgraph), the set is built from the holders and the
// reservations still open, and answers the same.
TEST(NameSet, AsksHoldsUntilItCannotAnswerThenBuildsTheSet) {
  std::set<std::string> values = {"x", "y"};
  bool has_subgraphs = false;
  int builds = 0;
  NameSet names(
      [&](const auto& add) {
        ++builds;
        for (const std::string& n : values) add(n);
        add("inner");  // a subgraph's value, which `holds` does not know
      },
      [&](std::string_view n) -> std::optional<bool> {
        if (has_subgraphs) return std::nullopt;
        return values.count(std::string(n)) != 0;
      });
  EXPECT_TRUE(names.Contains("x"));
  EXPECT_FALSE(names.Contains("z"));
  EXPECT_EQ(names.Fresh("x"), "x__1");
  EXPECT_TRUE(names.Contains("x__1"));  // reserved
  const std::string open = names.Fresh("x");  // reserved, not yet taken when the set is built
  EXPECT_EQ(open, "x__2");
  values.insert("x__1");
  names.Note("x__1");  // takes its reservation
  values.erase("x__1");
  names.Forget("x__1");
  EXPECT_FALSE(names.Contains("x__1"));  // its value went: free again
  EXPECT_EQ(builds, 0);
  has_subgraphs = true;
  EXPECT_TRUE(names.Contains("inner"));
  EXPECT_EQ(builds, 1);
  EXPECT_TRUE(names.Contains(open));  // still reserved
  values.insert(open);
  names.Note(open);  // takes it: one holder
  names.Forget(open);
  EXPECT_FALSE(names.Contains(open));
  EXPECT_TRUE(names.Contains("y"));
  EXPECT_FALSE(names.Contains("x__1"));
}

// Random notes, forgets and fresh names over a pool of names, in a set small enough that runs of its open
// addressing wrap and its entries are shifted back by removals: Contains follows a plain count of each name. Once
// with the set built at the start, once answered through `holds` for the first half and built from the holders and
// open reservations then.
TEST(NameSet, FollowsAReferenceCountThroughRandomChanges) {
  for (const bool with_holds : {false, true}) {
    std::vector<std::string> pool;
    for (int i = 0; i < 3000; ++i) pool.push_back("n" + std::to_string(i));
    std::map<std::string, int> held;
    for (size_t i = 0; i < pool.size(); i += 3) ++held[pool[i]];
    bool answer = with_holds;
    NameSet names(
        [&](const auto& add) {
          for (const auto& [name, count] : held)
            for (int c = 0; c < count; ++c) add(name);
        },
        [&](std::string_view n) -> std::optional<bool> {
          if (!answer) return std::nullopt;
          auto it = held.find(std::string(n));
          return it != held.end() && it->second > 0;
        });
    ASSERT_TRUE(names.Contains("n0"));
    std::mt19937 rng(7);
    for (int step = 0; step < 200000; ++step) {
      if (step == 100000) answer = false;  // the set is built at the next Contains or Fresh
      const std::string& n = pool[rng() % pool.size()];
      switch (rng() % 3) {
        case 0:
          names.Note(n);
          ++held[n];
          break;
        case 1:
          if (held[n] > 0) {
            names.Forget(n);
            --held[n];
          }
          break;
        default: {
          const std::string fresh = names.Fresh(n);  // free, then reserved: taken by the Note that follows
          ASSERT_EQ(held[fresh], 0) << fresh;
          names.Note(fresh);
          ++held[fresh];
        }
      }
      if (step % 10000 != 0 && step != 199999) continue;
      for (const auto& [name, count] : held) {
        ASSERT_EQ(names.Contains(name), count > 0) << name << " at " << step << (with_holds ? " with holds" : "");
      }
    }
  }
}

}  // namespace
}  // namespace kiln
