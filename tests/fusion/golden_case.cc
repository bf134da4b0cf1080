#include "fusion/golden_case.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>

#include "fusion/fusion_test_util.h"
#include "support/error.h"
#include "support/golden.h"

namespace kiln::testing {
namespace fs = std::filesystem;

const std::vector<PackFile>& BuiltinPackFiles() {
  static const std::vector<PackFile> packs = [] {
    std::vector<std::string> paths;
    for (const auto& e : fs::directory_iterator(KILN_FUSION_PACK_DIR))
      if (e.path().extension() == ".yaml") paths.push_back(e.path().string());
    std::sort(paths.begin(), paths.end());
    std::vector<PackFile> out;
    for (const std::string& p : paths) {
      YAML::Node root = YAML::LoadFile(p);
      PackFile f;
      f.path = p;
      f.name = root["pack"].as<std::string>();
      for (const YAML::Node& r : root["rules"]) {
        PackRule rule;
        rule.name = r["name"].as<std::string>();
        rule.action = r["fuse"] ? "fuse" : "rewrite";
        if (r["fuse"]) rule.fuse = r["fuse"].as<std::string>();
        f.rules.push_back(rule);
      }
      out.push_back(std::move(f));
    }
    return out;
  }();
  return packs;
}

const PackRule* FindPackRule(const std::string& rule) {
  for (const PackFile& p : BuiltinPackFiles())
    for (const PackRule& r : p.rules)
      if (r.name == rule) return &r;
  return nullptr;
}

std::map<std::string, std::vector<GoldenCase>>& GoldenRegistry() {
  static std::map<std::string, std::vector<GoldenCase>> registry;
  return registry;
}

bool RegisterGoldenCases(const std::string& pack, const std::vector<GoldenCase>& cases) {
  auto& list = GoldenRegistry()[pack];
  list.insert(list.end(), cases.begin(), cases.end());
  return true;
}

std::string OnnxModel(const std::string& graph, int opset) {
  return "<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + "]>\n" + graph;
}

std::string FusedModel(const std::string& graph, int opset) {
  return "<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + ", \"kiln.fused\" : 1]>\n" + graph;
}

std::string GoldenCaseName(const ::testing::TestParamInfo<GoldenCase>& info) {
  return info.param.rule + "_" + info.param.variant;
}

std::string NamesAsText(std::string printed) {
  std::replace(printed.begin(), printed.end(), '/', '_');
  return printed;
}

void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.rule << "_" << c.variant; }

void RunGoldenCase(const GoldenCase& c) {
  const PackRule* rule = FindPackRule(c.rule);
  ASSERT_NE(rule, nullptr) << "no built-in pack has a rule '" << c.rule << "'";
  auto model = ParseModel(c.before);
  ASSERT_TRUE(model);
  const std::string before_text = PrintGraph(*model);
  std::map<std::string, std::string> options;
  if (!c.disable.empty()) options["fusion.disabledRules"] = c.disable;
  nlohmann::json report;
  try {
    report = RunPatternFusion(*model, options, c.verify);
  } catch (const Error& e) {
    FAIL() << "the compile failed: " << e.what();
  }
  const std::string candidates = DescribeCandidates(report);
  std::vector<ReportedCandidate> mine = CandidatesOf(report, c.rule);
  auto decided = [&](const std::string& decision) {
    return std::any_of(mine.begin(), mine.end(), [&](const ReportedCandidate& r) { return r.decision == decision; });
  };
  const std::string applied = rule->action == "fuse" ? "fused" : "rewritten";
  const std::string expected_graph = c.after.empty() ? before_text : Canonical(c.after);
  EXPECT_EQ(NamesAsText(PrintGraph(*model)), expected_graph) << "candidates:\n" << candidates;
  if (!c.inits.empty()) {
    EXPECT_EQ(InitializerText(*model), c.inits);
  }
  switch (c.expect) {
    case Expect::kFires: {
      EXPECT_TRUE(decided(applied)) << c.rule << " was not " << applied << "; candidates:\n" << candidates;
      EXPECT_NE(PrintGraph(*model), before_text) << "the graph did not change";
      if (rule->action == "fuse") {
        const std::string function = c.function.empty() ? rule->fuse : c.function;
        std::vector<std::string> calls = FusedCalls(*model);
        EXPECT_TRUE(std::any_of(calls.begin(), calls.end(),
                                [&](const std::string& s) { return s.find("(" + function + ")") != std::string::npos; }))
            << "no kiln.fused." << function << " call in: " << MainGraphOps(*model);
        EXPECT_EQ(FunctionBodyOps(*model, function), c.body) << "the body of kiln.fused." << function;
      }
      break;
    }
    case Expect::kRejected:
      EXPECT_TRUE(decided("rejected")) << c.rule << " made no rejected candidate; candidates:\n" << candidates;
      EXPECT_FALSE(decided(applied)) << c.rule << " applied; candidates:\n" << candidates;
      EXPECT_TRUE(std::any_of(mine.begin(), mine.end(),
                              [&](const ReportedCandidate& r) {
                                return r.decision == "rejected" && r.reason.find(c.reason) != std::string::npos;
                              }))
          << "no rejection of " << c.rule << " says '" << c.reason << "'; candidates:\n" << candidates;
      break;
    case Expect::kNoCandidate: {
      EXPECT_TRUE(mine.empty()) << c.rule << " made a candidate; candidates:\n" << candidates;
      // The summary counts every candidate, also those past fusion.reportLimit.
      for (const auto& st : report["stages"])
        for (const auto& p : st["passes"])
          if (p.contains("reports") && p["reports"].contains("candidate_summary")) {
            for (const auto& s : p["reports"]["candidate_summary"]) EXPECT_NE(s.value("rule", ""), c.rule);
          }
      break;
    }
  }
  if (c.numerics) {
    auto original = ParseModel(c.before);
    ASSERT_TRUE(original);
    try {
      for (unsigned seed : {1u, 2u}) EXPECT_TRUE(SameOutputs(Execute(*original, seed), Execute(*model, seed)));
    } catch (const Error& e) {
      FAIL() << "the executor failed: " << e.what();
    }
  }
}

TEST_P(FusionGolden, Applies) { RunGoldenCase(GetParam()); }

}  // namespace kiln::testing
