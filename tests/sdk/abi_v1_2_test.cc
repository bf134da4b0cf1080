// ABI 1.2 frozen beyond offsets, as abi_v1_1_test.cc freezes 1.1: every name of 1.2 (abi_v1_2_names.inc) as the
// current header compiles it, compared entry by entry with the frozen 1.2 header's table (abi_v1_2_frozen.cc). So
// every 1.2 host slot keeps its offset and exact type (return and parameter types), every 1.2 struct its fields,
// and every 1.2 constant its value.
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
#include "abi_v1_2_names.inc"
// A type added after 1.2, so that a 1.2 name retyped to it fails the comparison instead of the build.
KILN_TEST_NAME_TYPE(KilnCostEstimate, KilnCostEstimate)
}  // namespace kiln_test

namespace {

using kiln_test::AbiEntry;

std::vector<AbiEntry> CurrentTable() {
  return {
#define KILN_TEST_ABI_NAMES "abi_v1_2_names.inc"
#include "abi_v1_1_table.inc"
  };
}

std::map<std::string, AbiEntry> ByName(const std::vector<AbiEntry>& table) {
  std::map<std::string, AbiEntry> out;
  for (const AbiEntry& e : table) out[e.name] = e;
  return out;
}

TEST(AbiV1_2, TheFrozenTableIsThe1_2Header) {
  EXPECT_EQ(kiln_test::FrozenV1_2AbiVersion(), KILN_ABI_VERSION_1_2);
  std::map<std::string, AbiEntry> frozen = ByName(kiln_test::FrozenV1_2Table());
  EXPECT_EQ(frozen["KilnHostApi"].size, 24u + 8u * 172u);
  EXPECT_EQ(frozen["KilnPassInfo"].size, 104u);
  EXPECT_EQ(frozen["KilnTargetInfo"].size, 16u);  // only the name, before 1.3
  EXPECT_EQ(frozen["KilnHostApi.graph_outline"].type,
            "KilnStatus* (*)(KilnGraph*, KilnNode* const*, unsigned long, const KilnOutlineInfo*, KilnNode**, "
            "KilnFunction**)");
  EXPECT_EQ(frozen["KilnHostApi.fusion_rule_pack_at"].offset, 1392u);
  EXPECT_EQ(frozen["KILN_ABI_VERSION_1_2"].value, std::to_string(0x00010002u));
  EXPECT_EQ(frozen["KILN_TEMPORARY_MARK_PREFIX"].value, "\"__kiln_\"");
}

// The names list leaves nothing of a 1.2 struct out: its fields, in order, fill the struct up to padding; and it
// holds every 1.1 name too.
TEST(AbiV1_2, TheNamesListCoversEveryByteOf1_2) {
  const std::vector<AbiEntry> frozen = kiln_test::FrozenV1_2Table();
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
  EXPECT_EQ(structs, 12u);  // 1.1's ten, KilnFunctionInfo and KilnOutlineInfo
  EXPECT_EQ(slots, 172u);   // 1.1's 109 and 1.2's 63
  for (const AbiEntry& e : kiln_test::FrozenV1_1Table()) EXPECT_TRUE(names.count(e.name)) << e.name << " of 1.1";
}

TEST(AbiV1_2, EveryNameKeepsItsLayoutTypeAndValue) {
  const std::vector<std::string> differences =
      kiln_test::AbiDifferences(kiln_test::FrozenV1_2Table(), CurrentTable(), "1.2");
  std::string lines;
  for (const std::string& l : differences) lines += "\n  " + l;
  EXPECT_TRUE(differences.empty()) << differences.size() << " difference(s) from the frozen ABI 1.2:" << lines;
}

// The comparison names a 1.2 slot's changed parameter type as it does 1.1's.
TEST(AbiV1_2, TheComparisonNamesAChanged1_2Slot) {
  const std::vector<AbiEntry> frozen = kiln_test::FrozenV1_2Table();
  std::vector<AbiEntry> current = frozen;
  for (AbiEntry& e : current)
    if (e.name == "KilnHostApi.node_topo_index") e.type = "int (*)(KilnNode*)";
  EXPECT_EQ(kiln_test::AbiDifferences(frozen, current, "1.2"),
            std::vector<std::string>{"field KilnHostApi.node_topo_index: type was `long (*)(KilnNode*)` in 1.2, is "
                                     "`int (*)(KilnNode*)` now"});
}

}  // namespace
