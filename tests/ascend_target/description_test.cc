// Target descriptions: every shipped YAML parses, every number in it carries a tag and a source (checked on the
// YAML tree itself, independently of the parser), the derived numbers agree with their formulas, and a bad file
// is one error naming file:line:column.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ascend_test_util.h"

namespace kiln::ascend {
namespace {

using namespace testing;

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool IsNumber(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

// Every plain (unquoted) numeric scalar must be the `value` of a mapping with a tag and a source, or an entry of
// the `values` of such a mapping. Returns the paths that break the rule.
std::vector<std::string> UntaggedNumbers(const YAML::Node& root) {
  std::vector<std::string> bad;
  std::function<void(const YAML::Node&, const std::string&, bool)> walk = [&](const YAML::Node& n,
                                                                            const std::string& path, bool covered) {
    if (n.IsScalar()) {
      if (n.Tag() == "?" && IsNumber(n.Scalar()) && !covered) bad.push_back(path + " = " + n.Scalar());
      return;
    }
    if (n.IsSequence()) {
      for (size_t i = 0; i < n.size(); ++i) walk(n[i], path + "[" + std::to_string(i) + "]", false);
      return;
    }
    if (!n.IsMap()) return;
    const bool tagged = n["tag"] && n["source"] && !n["source"].Scalar().empty();
    for (const auto& kv : n) {
      std::string key = kv.first.Scalar();
      if (tagged && key == "value")
        walk(kv.second, path + ".value", true);
      else if (tagged && key == "values" && kv.second.IsMap())
        for (const auto& e : kv.second) walk(e.second, path + ".values." + e.first.Scalar(), true);
      else
        walk(kv.second, path + "." + key, false);
    }
  };
  walk(root, "", false);
  return bad;
}

TEST(TargetDescriptions, EveryShippedFileParses) {
  std::vector<std::string> files = DescriptionFiles(KILN_TARGETS_DIR);
  ASSERT_GE(files.size(), 3u);
  std::set<std::string> names;
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    TargetDescription d;
    ASSERT_NO_THROW(d = LoadDescription(f));
    names.insert(d.name);
    EXPECT_FALSE(d.description.empty());
    for (const char* e : {"cube", "vector", "aicpu", "host"}) EXPECT_TRUE(d.FindEngine(e)) << e;
    EXPECT_TRUE(d.FindBuffer("ub"));
    EXPECT_TRUE(d.FindBuffer("l2"));
    // The details parse as JSON and keep every number's tag.
    nlohmann::json j = nlohmann::json::parse(DescriptionJson(d));
    EXPECT_EQ(j["name"], d.name);
    EXPECT_EQ(j["clock"]["tag"], "fact");
    EXPECT_EQ(j["memory"]["offchip"]["bandwidth"]["tag"], "assumed");
    EXPECT_FALSE(j["memory"]["offchip"]["bandwidth"]["note"].get<std::string>().empty());
  }
  EXPECT_EQ(names, (std::set<std::string>{"ascend310p3", "ascend910a", "ascend910b1"}));
}

TEST(TargetDescriptions, EveryNumberHasATagAndASource) {
  for (const std::string& f : DescriptionFiles(KILN_TARGETS_DIR)) {
    SCOPED_TRACE(f);
    EXPECT_EQ(UntaggedNumbers(YAML::LoadFile(f)), std::vector<std::string>{});
    TargetDescription d = LoadDescription(f);
    std::vector<std::pair<std::string, const Number*>> numbers = d.AllNumbers();
    EXPECT_GT(numbers.size(), 25u);
    for (const auto& [path, n] : numbers) {
      EXPECT_FALSE(n->from.source.empty()) << path;
      if (n->from.tag != Tag::kFact) {
        EXPECT_FALSE(n->from.note.empty()) << path << " needs its formula or reasoning";
      }
    }
    EXPECT_FALSE(d.formats.c0.from.source.empty());
    for (const OpClass& c : d.classes)
      if (!c.factors.empty()) {
        EXPECT_FALSE(c.factors.from.source.empty()) << c.name;
      }
  }
}

TEST(TargetDescriptions, TheTaggedNumberCheckCatchesABareNumber) {
  YAML::Node n = YAML::Load("a: {value: 1, tag: fact, source: x}\nb: {count: 3}\nc: {tag: fact, source: y, values: {k: 2}}\n"
                            "d: \"220\"\n");
  EXPECT_EQ(UntaggedNumbers(n), std::vector<std::string>{".b.count = 3"});
}

TEST(TargetDescriptions, DerivedPeaksAgreeWithTheResearch) {
  // research 1.4: AIC x 16x16x16 MAC x 2 x f.
  TargetDescription b1 = Shipped("ascend910b1");
  EXPECT_NEAR(b1.FindEngine("cube")->peak.at("fp16").ops_per_second, 24 * 8192 * 1.85e9, 1e6);
  EXPECT_NEAR(b1.FindEngine("cube")->peak.at("fp16").ops_per_second / 1e12, 363.7, 0.05);
  EXPECT_NEAR(b1.FindEngine("cube")->peak.at("int8").ops_per_second / 1e12, 727.4, 0.05);
  EXPECT_NEAR(b1.FindEngine("vector")->peak.at("fp16").ops_per_second / 1e12, 11.4, 0.05);
  EXPECT_NEAR(Shipped("ascend910a").FindEngine("cube")->peak.at("fp16").ops_per_second / 1e12, 262.1, 0.05);
  EXPECT_NEAR(Shipped("ascend310p3").FindEngine("cube")->peak.at("fp16").ops_per_second / 1e12, 69.5, 0.05);
  // The assumed HBM bandwidth is the fixture's 32 B/cycle x f x AIC, as its note says.
  EXPECT_NEAR(b1.offchip.bandwidth.value, 32 * 1.85e9 * 24, 1e6);
  EXPECT_NEAR(Shipped("ascend310p3").offchip.bandwidth.value, 17 * 1.06e9 * 8, 1e6);
  // Facts as read: UB 192 KiB less 256 B on 910B1, 256 KiB on the coupled chips.
  EXPECT_EQ(b1.FindBuffer("ub")->bytes.value - b1.tile.reserved->value, 196352);
  EXPECT_EQ(Shipped("ascend910a").FindBuffer("ub")->bytes.value, 262144);
  EXPECT_EQ(b1.FindCoreKind("aiv")->count.value, 48);
  EXPECT_EQ(b1.sync.cube_to_vector, "via_gm");
  EXPECT_EQ(Shipped("ascend310p3").sync.cube_to_vector, "l0c_to_ub");
}

TEST(TargetDescriptions, UnitsConvertToSi) {
  TargetDescription d = TestChip();
  EXPECT_EQ(d.clock.value, 1e9);
  EXPECT_EQ(d.clock.written, 1);
  EXPECT_EQ(d.clock.unit, "GHz");
  EXPECT_EQ(d.FindBuffer("ub")->bytes.value, 65536);
  EXPECT_DOUBLE_EQ(d.sync.launch.value, 5e-6);
  EXPECT_EQ(d.offchip.bandwidth.value, 1e12);
  EXPECT_EQ(d.FindEngine("vector")->peak.at("fp16").ops_per_second, 20 * 128 * 1e9);
}

// ---- errors: one message, file:line:column
std::string ErrorOf(const std::string& yaml) {
  try {
    ParseDescription(yaml, "bad.yaml");
  } catch (const DescriptionError& e) {
    return e.what();
  }
  return "(parsed)";
}

// The test chip's text with one line replaced.
std::string Edited(const std::string& from, const std::string& to) {
  std::string text = Read(std::string(KILN_ASCEND_TEST_DIR) + "/test_chip.yaml");
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

int LineOf(const std::string& text, const std::string& what) {
  size_t at = text.find(what);
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
}

TEST(TargetDescriptions, ASyntaxErrorNamesFileLineAndColumn) {
  EXPECT_EQ(ErrorOf("name: x\nclock: {value: 1\n"), "bad.yaml:3:1: end of map flow not found");
}

TEST(TargetDescriptions, ABareNumberIsRefused) {
  std::string text = Edited("clock: {value: 1, unit: GHz, tag: assumed, source: test, note: round}", "clock: 1000000000");
  EXPECT_EQ(ErrorOf(text), "bad.yaml:" + std::to_string(LineOf(text, "clock: 1")) +
                               ":8: clock must be a tagged number {value, unit, tag: fact|derived|assumed, source, note}");
}

TEST(TargetDescriptions, AnUnknownTagOrAMissingSourceIsRefused) {
  EXPECT_NE(ErrorOf(Edited("tag: assumed, source: test, note: round}}\n  aiv", "tag: guess, source: test, note: round}}\n  aiv"))
                .find(": core_kinds.aic.count.tag must be fact, derived or assumed, not 'guess'"),
            std::string::npos);
  std::string text = Edited("bandwidth: {value: 1, unit: TB/s, tag: assumed, source: test, note: round}",
                            "bandwidth: {value: 1, unit: TB/s, tag: fact}");
  EXPECT_EQ(ErrorOf(text), "bad.yaml:" + std::to_string(LineOf(text, "bandwidth:")) +
                               ":16: memory.offchip.bandwidth has no 'source'");
}

TEST(TargetDescriptions, AnAssumptionNeedsItsReasoning) {
  std::string text = Edited("launch: {value: 5, unit: us, tag: assumed, source: test, note: round}",
                            "launch: {value: 5, unit: us, tag: assumed, source: test}");
  EXPECT_NE(ErrorOf(text).find("sync.launch is assumed: it needs a note"), std::string::npos) << ErrorOf(text);
}

TEST(TargetDescriptions, AWrongUnitIsRefused) {
  std::string text = Edited("launch: {value: 5, unit: us,", "launch: {value: 5, unit: MHz,");
  EXPECT_EQ(ErrorOf(text), "bad.yaml:" + std::to_string(LineOf(text, "launch: {value: 5, unit: MHz")) +
                               ":11: sync.launch: unit 'MHz' is not a time (s, ms, us, ns)");
}

TEST(TargetDescriptions, AnUnknownKeyIsRefused) {
  std::string text = Edited("  cube_to_vector: via_gm", "  cube_to_vectr: via_gm");
  EXPECT_EQ(ErrorOf(text), "bad.yaml:" + std::to_string(LineOf(text, "cube_to_vectr")) +
                               ":3: sync has an unknown key 'cube_to_vectr'");
}

TEST(TargetDescriptions, ReferencesMustResolve) {
  EXPECT_NE(ErrorOf(Edited("conv:\n    engine: cube", "conv:\n    engine: tensor_core"))
                .find("op_classes.conv.engine 'tensor_core' is not one of engines"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Edited("core_kind: aiv", "core_kind: aiw")).find("engines.vector.core_kind 'aiw' is not one of core_kinds"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Edited("inputs: [ND, FRACTAL_NZ]", "inputs: [ND, FRACTAL_ZZ]"))
                .find("op_classes.matmul.formats.inputs: format 'FRACTAL_ZZ' is not in formats.supported"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Edited("ops: [Gemm]", "ops: [Gemm, MatMul]")).find("op 'MatMul' is already in class 'matmul'"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Edited("cost: gemm", "cost: gem")).find("op_classes.gemm.cost must be one of conv"), std::string::npos);
}

TEST(TargetDescriptions, AMissingFileIsAnError) {
  EXPECT_THROW(LoadDescription("/nonexistent/x.yaml"), DescriptionError);
  EXPECT_TRUE(DescriptionFiles("/nonexistent").empty());
  EXPECT_EQ(ErrorOf(""), "bad.yaml: the file is empty");
}

}  // namespace
}  // namespace kiln::ascend
