// The golden cases of the built-in fusion packs: one table per pack (norms_golden_test.cc, ...), each case a model
// in ONNX text before PatternFusionPass and what must come of it. Every table is registered under its pack's
// name, so that pack_coverage_test.cc can check that every rule of every pack in configs/fusion has at least two
// cases where it applies and one where it must not.
//
//   kFires        the rule's candidate is fused (or rewritten); the main graph becomes `after`, the function the
//                 rule fuses into has the body `body` (its op types in order), and with `numerics` the reference
//                 executor computes the same outputs before and after.
//   kRejected     the rule matched but its candidate was rejected, with `reason` in the report's reason; the graph
//                 is unchanged (or becomes `after`, when other rules apply).
//   kNoCandidate  the rule does not match at all (no candidate, none counted); the graph is unchanged (or becomes
//                 `after`).
// `disable` names other rules to switch off (fusion.disabledRules) so that a negative case shows the graph left
// exactly as it was.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace kiln::testing {

enum class Expect { kFires, kRejected, kNoCandidate };

struct GoldenCase {
  std::string rule;     // the rule the case is about
  std::string variant;  // what is special about it (a test-name part: letters, digits, '_')
  Expect expect = Expect::kFires;
  std::string before;   // a whole model in ONNX text
  std::string after;    // the main graph expected after (a model in ONNX text); empty: unchanged. Names a
                        // rewrite makes ("Div/const") are written with '_' for '/', which ONNX text lacks
  std::string body;     // kFires of a fuse rule: the function's op types in order
  std::string function;  // the function's name when it is not the rule's `fuse:` name
  std::string reason;   // kRejected: a part of the reported reason
  std::string disable;  // other rules to disable, ','-separated
  std::string inits;    // when set: the main graph's initializers after, as InitializerText prints them
  bool numerics = false;
  bool verify = true;  // the compile verifies after each pass (off where onnx 1.12's schemas end: opset 18)
};

// The printed graph with every '/' of its names as '_' (the printer writes no '/' but in names).
std::string NamesAsText(std::string printed);

// gtest prints a case by its name.
void PrintTo(const GoldenCase& c, std::ostream* os);

// The rules of one pack file, as its YAML says.
struct PackRule {
  std::string name, action, fuse;  // action: "fuse" or "rewrite"; fuse: the function name
};
struct PackFile {
  std::string name, path;
  std::vector<PackRule> rules;
};
inline void PrintTo(const PackFile& p, std::ostream* os) { *os << p.name; }
// Every configs/fusion/*.yaml, read with yaml-cpp (names, actions, fuse names only), in file-name order.
const std::vector<PackFile>& BuiltinPackFiles();
// The rule of that name in any built-in pack, or null.
const PackRule* FindPackRule(const std::string& rule);

// The case tables by pack name.
std::map<std::string, std::vector<GoldenCase>>& GoldenRegistry();
bool RegisterGoldenCases(const std::string& pack, const std::vector<GoldenCase>& cases);

// Runs one case and asserts what it expects.
void RunGoldenCase(const GoldenCase& c);

// "<ir_version: 8, opset_import: ["" : opset]>\n" + graph; with fused calls the expected text also imports
// kiln.fused.
std::string OnnxModel(const std::string& graph, int opset = 17);
std::string FusedModel(const std::string& graph, int opset = 17);

class FusionGolden : public ::testing::TestWithParam<GoldenCase> {};

std::string GoldenCaseName(const ::testing::TestParamInfo<GoldenCase>& info);

}  // namespace kiln::testing

// In one case file: registers `cases` (a function returning the table) under `pack` and instantiates its tests.
#define KILN_FUSION_GOLDENS(pack, cases)                                                       \
  static const bool kiln_fusion_registered_##pack = ::kiln::testing::RegisterGoldenCases(#pack, cases()); \
  INSTANTIATE_TEST_SUITE_P(pack, FusionGolden, ::testing::ValuesIn(cases()), ::kiln::testing::GoldenCaseName)
