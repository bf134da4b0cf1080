// Every built-in pack (configs/fusion/*.yaml) loads on its own through the fusion plugin's loader, and every rule
// in it has golden cases: at least two where it applies and one where it must not. A rule added to a pack without
// its cases fails here; so does a case table naming a rule its pack does not have.
#include <gtest/gtest.h>

#include <set>

#include "fusion/fusion_test_util.h"
#include "fusion/golden_case.h"
#include "support/error.h"
#include "support/golden.h"

namespace kiln::testing {
namespace {

class PackCoverage : public ::testing::TestWithParam<PackFile> {};

TEST_P(PackCoverage, LoadsAloneWithTheRulesItsYamlNames) {
  const PackFile& pack = GetParam();
  ASSERT_FALSE(pack.rules.empty()) << pack.path << " has no rules";
  // Disabling every rule by name is an error for a name no loaded pack has: so the loader read each of them.
  std::string names;
  for (const PackRule& r : pack.rules) names += (names.empty() ? "" : ",") + r.name;
  auto m = ParseModel(OnnxModel("g (float[2] x) => (float[2] y) { y = Relu(x) }"));
  ASSERT_TRUE(m);
  try {
    nlohmann::json report = RunPatternFusion(
        *m, {{"fusion.builtinPacks", "false"}, {"fusion.packs", pack.path}, {"fusion.disabledRules", names}});
    EXPECT_TRUE(report.contains("stages"));
  } catch (const Error& e) {
    FAIL() << pack.path << " does not load: " << e.what();
  }
  // And with every rule on, the pack runs on a graph none of them matches.
  auto m2 = ParseModel(OnnxModel("g (float[2] x) => (float[2] y) { y = Relu(x) }"));
  ASSERT_TRUE(m2);
  try {
    nlohmann::json report = RunPatternFusion(*m2, {{"fusion.builtinPacks", "false"}, {"fusion.packs", pack.path}});
    EXPECT_TRUE(Candidates(report).empty()) << DescribeCandidates(report);
  } catch (const Error& e) {
    FAIL() << pack.path << " does not run: " << e.what();
  }
}

TEST_P(PackCoverage, EveryRuleHasGoldenCases) {
  const PackFile& pack = GetParam();
  auto it = GoldenRegistry().find(pack.name);
  ASSERT_NE(it, GoldenRegistry().end()) << "pack '" << pack.name << "' (" << pack.path
                                        << ") has no golden case table: add tests/fusion/" << pack.name
                                        << "_golden_test.cc";
  std::set<std::string> in_pack;
  for (const PackRule& r : pack.rules) in_pack.insert(r.name);
  std::map<std::string, int> fires, negatives;
  for (const GoldenCase& c : it->second) {
    EXPECT_TRUE(in_pack.count(c.rule)) << "case " << c.rule << "_" << c.variant << " names no rule of pack "
                                       << pack.name;
    (c.expect == Expect::kFires ? fires : negatives)[c.rule]++;
  }
  for (const PackRule& r : pack.rules) {
    EXPECT_GE(fires[r.name], 2) << "rule " << r.name << " of " << pack.path
                                << " needs at least two golden cases where it applies";
    EXPECT_GE(negatives[r.name], 1) << "rule " << r.name << " of " << pack.path
                                    << " needs a golden case where it must not apply";
  }
}

TEST(PackCoverage, EveryCaseTableIsABuiltinPack) {
  std::set<std::string> packs;
  for (const PackFile& p : BuiltinPackFiles()) packs.insert(p.name);
  for (const auto& [name, cases] : GoldenRegistry()) EXPECT_TRUE(packs.count(name)) << "no pack named " << name;
  EXPECT_GE(packs.size(), 7u);
}

std::string PackName(const ::testing::TestParamInfo<PackFile>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Builtin, PackCoverage, ::testing::ValuesIn(BuiltinPackFiles()), PackName);

}  // namespace
}  // namespace kiln::testing
