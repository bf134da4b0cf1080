// ABI 1.1 frozen beyond offsets: every name of 1.1 (abi_v1_1_names.inc) as the current header compiles it,
// compared entry by entry with the frozen 1.1 header's table (abi_v1_1_frozen.cc). A field or host slot keeps
// its offset, size, alignment and exact type (a slot's return and parameter types), a struct never shrinks or
// changes alignment, a typedef and a function keep their types, and every enum and #define'd constant keeps its
// value and type. What differs is named, the first difference first.
#include <kiln/kiln_plugin.h>

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "abi_table.h"

namespace kiln_test {
#define KILN_HANDLE(T) KILN_TEST_NAME_TYPE(T, T)
#define KILN_STRUCT(T) KILN_TEST_NAME_TYPE(T, T)
#include "abi_v1_1_names.inc"
// Types added after 1.1, so that a 1.1 name retyped to one of them fails the comparison instead of the build.
KILN_TEST_NAME_TYPE(KilnModel, KilnModel)
KILN_TEST_NAME_TYPE(KilnFunction, KilnFunction)
KILN_TEST_NAME_TYPE(KilnFunctionInfo, KilnFunctionInfo)
KILN_TEST_NAME_TYPE(KilnOutlineInfo, KilnOutlineInfo)
KILN_TEST_NAME_TYPE(KilnCostEstimate, KilnCostEstimate)
}  // namespace kiln_test

namespace {

using kiln_test::AbiEntry;

std::vector<AbiEntry> CurrentTable() {
  return {
#include "abi_v1_1_table.inc"
  };
}

std::vector<std::string> Differences(const std::vector<AbiEntry>& frozen, const std::vector<AbiEntry>& current) {
  return kiln_test::AbiDifferences(frozen, current, "1.1");
}

std::string Lines(const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& l : lines) s += "\n  " + l;
  return s;
}

TEST(AbiV1_1, TheFrozenTableIsThe1_1Header) {
  EXPECT_EQ(kiln_test::FrozenV1_1AbiVersion(), KILN_ABI_VERSION_1_1);
  std::map<std::string, AbiEntry> frozen;
  for (const AbiEntry& e : kiln_test::FrozenV1_1Table()) frozen[e.name] = e;
  EXPECT_EQ(frozen["KilnHostApi"].size, 896u);
  EXPECT_EQ(frozen["KilnPassInfo"].size, 96u);
  EXPECT_EQ(frozen["KilnPluginDescriptor"].size, 48u);
  EXPECT_EQ(frozen["KilnHostApi.node_inline_subgraph"].type, "KilnStatus* (*)(KilnNode*, unsigned long)");
  EXPECT_EQ(frozen["KILN_PLUGIN_ENTRY_SYMBOL"].value, "\"kiln_plugin_entry\"");
}

// The names list leaves nothing of a 1.1 struct out: its fields, in order, fill the struct up to padding.
TEST(AbiV1_1, TheNamesListCoversEveryByteOf1_1) {
  const std::vector<AbiEntry> frozen = kiln_test::FrozenV1_1Table();
  auto round_up = [](size_t n, size_t align) { return (n + align - 1) / align * align; };
  std::set<std::string> names;
  size_t structs = 0, slots = 0;
  for (size_t i = 0; i < frozen.size(); ++i) {
    EXPECT_TRUE(names.insert(frozen[i].name).second) << frozen[i].name << " is listed twice";
    if (frozen[i].kind != "struct") continue;
    ++structs;
    const AbiEntry& s = frozen[i];
    size_t end = 0;
    for (size_t j = i + 1; j < frozen.size() && frozen[j].kind == "field"; ++j) {
      const AbiEntry& f = frozen[j];
      EXPECT_EQ(f.name.rfind(s.name + ".", 0), 0u) << f.name << " after struct " << s.name;
      EXPECT_EQ(f.offset, round_up(end, f.align)) << f.name << ": a field before it is missing from the list";
      end = f.offset + f.size;
      if (s.name == "KilnHostApi" && f.offset >= 24) ++slots;
    }
    EXPECT_EQ(s.size, round_up(end, s.align)) << s.name << ": a field at its end is missing from the list";
  }
  EXPECT_EQ(structs, 10u);
  EXPECT_EQ(slots, 109u);  // 1.0's 103 and 1.1's six subgraph slots
}

TEST(AbiV1_1, EveryNameKeepsItsLayoutTypeAndValue) {
  const std::vector<std::string> differences = Differences(kiln_test::FrozenV1_1Table(), CurrentTable());
  EXPECT_TRUE(differences.empty()) << differences.size() << " difference(s) from the frozen ABI 1.1, the first "
                                   << (differences.empty() ? "" : differences.front()) << ":" << Lines(differences);
}

// The comparison itself: each kind of change to a copy of the table is named, and nothing else is.
TEST(AbiV1_1, TheComparisonNamesWhatChanged) {
  const std::vector<AbiEntry> frozen = kiln_test::FrozenV1_1Table();
  ASSERT_TRUE(Differences(frozen, frozen).empty());
  struct Change {
    std::string name;
    void (*apply)(AbiEntry&);
    std::string expected;
  };
  const Change changes[] = {
      {"KilnHostApi.node_subgraph", [](AbiEntry& e) { e.type = "KilnGraph* (*)(KilnNode*, int, const char**)"; },
       "field KilnHostApi.node_subgraph: type was `KilnGraph* (*)(KilnNode*, unsigned long, const char**)` in 1.1, "
       "is `KilnGraph* (*)(KilnNode*, int, const char**)` now"},
      {"KilnPassInfo.on_finish_graph", [](AbiEntry& e) { e.offset += 8; },
       "field KilnPassInfo.on_finish_graph: offset was 88 in 1.1, is 96 now"},
      {"KilnTensorView.rank", [](AbiEntry& e) { e.size = 8; },
       "field KilnTensorView.rank: size was 4 in 1.1, is 8 now"},
      {"KilnHostApi", [](AbiEntry& e) { e.size -= 8; }, "struct KilnHostApi: shrank from 896 to 888 bytes"},
      {"KILN_STATUS_ABI_MISMATCH", [](AbiEntry& e) { e.value = "70"; },
       "enumerator KILN_STATUS_ABI_MISMATCH: value was 7 in 1.1, is 70 now"},
      {"KILN_PASS_INFO_SIZE_1_0", [](AbiEntry& e) { e.type = "unsigned int"; },
       "constant KILN_PASS_INFO_SIZE_1_0: type was `unsigned long` in 1.1, is `unsigned int` now"},
      {"KilnDestroyFn", [](AbiEntry& e) { e.type = "int (*)(void*)"; },
       "typedef KilnDestroyFn: type was `void (*)(void*)` in 1.1, is `int (*)(void*)` now"},
  };
  for (const Change& c : changes) {
    SCOPED_TRACE(c.name);
    std::vector<AbiEntry> current = frozen;
    size_t changed = 0;
    for (AbiEntry& e : current) {
      if (e.name != c.name) continue;
      c.apply(e);
      ++changed;
    }
    ASSERT_EQ(changed, 1u);
    EXPECT_EQ(Differences(frozen, current), std::vector<std::string>{c.expected});
  }
  // A struct that grew (appended fields) is not a difference.
  std::vector<AbiEntry> grown = frozen;
  for (AbiEntry& e : grown)
    if (e.name == "KilnPassInfo") e.size += 8;
  EXPECT_TRUE(Differences(frozen, grown).empty());
}

}  // namespace
