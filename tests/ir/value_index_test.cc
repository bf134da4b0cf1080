// ValueIndex (host/ir/value_index.h): values found by name through growth, replacement and erasure (the backward
// shift keeps every run unbroken), checked against std::unordered_map; and a graph's names after renames, removals
// and a rollback.
#include "ir/value_index.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/graph.h"
#include "ir/model.h"

namespace kiln {
namespace {

TEST(ValueIndex, FindsWhatAMapWouldThroughGrowthReplacementAndErasure) {
  Model m;
  std::vector<Value*> values;
  for (int i = 0; i < 3000; ++i) values.push_back(m.graph().AddValue("v" + std::to_string(i % 2000)));
  ValueIndex index;
  std::unordered_map<std::string, Value*> want;
  std::mt19937 rng(7);
  auto check = [&](int step) {
    ASSERT_EQ(index.size(), want.size()) << step;
    for (int i = 0; i < 2100; i += 7) {  // names never inserted (v2000..) included
      const std::string name = "v" + std::to_string(i);
      auto it = want.find(name);
      ASSERT_EQ(index.Find(name), it == want.end() ? nullptr : it->second) << name << " at step " << step;
    }
  };
  check(-1);
  EXPECT_EQ(index.Find("v1"), nullptr);  // empty
  for (int step = 0; step < 20000; ++step) {
    Value* v = values[rng() % values.size()];
    if (rng() % 3 != 0) {
      index.Insert(v);  // a second value of one name (v5 and v2005 are both "v5") replaces the first
      want[v->name()] = v;
    } else {
      index.Erase(v);  // only where the name maps to this very value
      if (auto it = want.find(v->name()); it != want.end() && it->second == v) want.erase(it);
    }
    if (step % 997 == 0) check(step);
  }
  check(20000);
  for (Value* v : values) index.Erase(v);
  EXPECT_EQ(index.size(), 0u);
  EXPECT_EQ(index.Find("v1"), nullptr);
}

TEST(ValueIndex, ReserveKeepsEveryEntry) {
  Model m;
  ValueIndex index;
  std::vector<Value*> values;
  for (int i = 0; i < 100; ++i) {
    values.push_back(m.graph().AddValue("r" + std::to_string(i)));
    index.Insert(values.back());
  }
  index.Reserve(100000);
  for (Value* v : values) EXPECT_EQ(index.Find(v->name()), v);
  EXPECT_EQ(index.size(), 100u);
}

TEST(ValueIndex, AGraphFindsItsValuesAfterRenamesRemovalsAndARollback) {
  Model m;
  Graph& g = m.graph();
  Value* a = g.AddValue("a");
  Value* b = g.AddValue("b");
  g.RenameValue(a, "a2");
  EXPECT_EQ(g.FindValue("a"), nullptr);
  EXPECT_EQ(g.FindValue("a2"), a);
  m.journal().Begin();
  g.RemoveValue(b);
  g.RenameValue(a, "a3");
  EXPECT_EQ(g.FindValue("b"), nullptr);
  EXPECT_EQ(g.FindValue("a3"), a);
  m.journal().Rollback();
  EXPECT_EQ(g.FindValue("b"), b);
  EXPECT_EQ(g.FindValue("a2"), a);
  EXPECT_EQ(g.FindValue("a3"), nullptr);
}

}  // namespace
}  // namespace kiln
