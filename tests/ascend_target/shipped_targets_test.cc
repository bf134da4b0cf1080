// Every shipped target (configs/targets/*.yaml) compiles every generated bench model at O3 with a trace: the
// compile succeeds, the output passes the IR verifier (--verify-each), and the trace is well-formed trace-event
// JSON whose tasks, launches and barriers agree with the report's `target` totals. The models (ResNet-50,
// MobileNetV2, BERT and LLaMA layers with static and symbolic batch, a 2,000-node chain) are generated at build
// time by bench/models/gen_models.py (the list is KILN_SHIPPED_TARGET_MODELS).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/run_kiln.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> Split(const std::string& csv) {
  std::vector<std::string> out;
  std::stringstream s(csv);
  for (std::string item; std::getline(s, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

std::vector<std::string> ShippedTargetNames() {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(KILN_TARGETS_DIR))
    if (e.path().extension() == ".yaml") names.insert(e.path().stem().string());
  return {names.begin(), names.end()};
}

nlohmann::json ReadJson(const fs::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

struct Case {
  std::string target;
  std::string model;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.target << " " << c.model; }

std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (const std::string& t : ShippedTargetNames())
    for (const std::string& m : Split(KILN_SHIPPED_TARGET_MODELS)) cases.push_back({t, m});
  return cases;
}

class ShippedTargets : public ::testing::TestWithParam<Case> {};

TEST_P(ShippedTargets, CompilesAtO3WithAValidTrace) {
  const Case& c = GetParam();
  const fs::path dir = testing::TempDir(c.target + "_" + c.model);
  const fs::path out = dir / "out.onnx", report = dir / "report.json", trace = dir / "trace.json";
  const std::string model = std::string(KILN_SHIPPED_TARGET_MODEL_DIR) + "/" + c.model + ".onnx";
  auto r = testing::RunKiln("compile " + model + " -o " + out.string() + " --oo.level=O3 --verify-each --target " +
                            c.target + " --report " + report.string() + " --trace " + trace.string() +
                            " --log-level=error");
  ASSERT_EQ(r.rc, 0) << r.output;
  ASSERT_TRUE(fs::exists(out));

  const nlohmann::json totals = ReadJson(report)["target"]["totals"];
  ASSERT_TRUE(totals.is_object());
  EXPECT_GT(totals["tasks"].get<int64_t>(), 0);
  EXPECT_GT(totals["estimated_seconds"].get<double>(), 0.0);

  const nlohmann::json t = ReadJson(trace);
  ASSERT_TRUE(t["traceEvents"].is_array());
  int64_t tasks = 0, launches = 0, barriers = 0;
  for (const auto& e : t["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph") && e.contains("name") && e.contains("pid")) << e.dump();
    if (e["ph"] == "X") {
      ++tasks;
      EXPECT_GE(e["dur"].get<double>(), 0.0) << e.dump();
      launches += e["args"]["launches"].get<int64_t>();
    }
    if (e["ph"] == "i") ++barriers;
  }
  EXPECT_EQ(tasks, totals["tasks"].get<int64_t>());
  EXPECT_EQ(launches, totals["launches"].get<int64_t>());
  EXPECT_EQ(barriers, totals["barriers"].get<int64_t>());
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(AllModels, ShippedTargets, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string name = info.param.target + "_" + info.param.model;
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

}  // namespace
}  // namespace kiln
