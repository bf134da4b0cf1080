// Memory plans of real models, checked: every generated bench model (KILN_MEMORY_MODELS, made at build time by
// bench/models/gen_models.py: ResNet-50, MobileNetV2, BERT and LLaMA layers with static and symbolic batch, an
// ERNIE layer, a 2,000-node chain; at O2 and O3) and every libonnx-testdata model with at least 10 nodes whose
// inputs all have static shapes (at O3), compiled with `kiln compile --memory-plan`. Each plan passes plan_checker.h (no two values
// live at one step share a byte, offsets aligned and inside the arena, the lower bound recomputed), its arena is
// at most 1.05 x the lower bound, and the report's summary agrees with the file.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "cli/run_kiln.h"
#include "memory/plan_checker.h"
#include "onnx/onnx_import.h"
#include "support/testdata.h"

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

nlohmann::json ReadJson(const fs::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
}

// Compiles `model` at `level` with a plan and a report, and checks both.
void CheckModel(const std::string& model, const std::string& tag, const std::string& level = "O3") {
  const fs::path dir = testing::TempDir("memory_" + tag);
  const fs::path out = dir / "out.onnx", plan_file = dir / "plan.json", report_file = dir / "report.json";
  auto r = testing::RunKiln("compile " + model + " -o " + out.string() + " -" + level + " --memory-plan " +
                            plan_file.string() + " --report " + report_file.string() + " --log-level=error");
  ASSERT_EQ(r.rc, 0) << r.output;
  const nlohmann::json plan = ReadJson(plan_file);
  ASSERT_FALSE(plan.is_discarded()) << "no plan (or not JSON) for " << model;
  ASSERT_TRUE(testing::CheckMemoryPlan(plan)) << model;
  const double arena = plan["arena_bytes"].get<double>(), bound = plan["lower_bound_bytes"].get<double>();
  EXPECT_LE(arena, 1.05 * bound) << model << ": arena " << arena << ", lower bound " << bound;

  const nlohmann::json report = ReadJson(report_file);
  bool summarised = false;
  for (const auto& st : report["stages"])
    for (const auto& p : st["passes"])
      if (p["name"] == "MemoryPlanningPass" && p.contains("reports") && p["reports"].contains("memory_plan")) {
        const auto& s = p["reports"]["memory_plan"];
        EXPECT_EQ(s["arena_bytes"], plan["arena_bytes"]);
        EXPECT_EQ(s["lower_bound_bytes"], plan["lower_bound_bytes"]);
        EXPECT_EQ(s["intermediate_bytes"], plan["intermediate_bytes"]);
        summarised = true;
      }
  EXPECT_TRUE(summarised) << "no reports.memory_plan in the report of " << model;
  fs::remove_all(dir);
}

class BenchModelPlans : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(BenchModelPlans, AreSoundAndWithinFivePercentOfTheLowerBound) {
  const auto& [model, level] = GetParam();
  CheckModel(std::string(KILN_MEMORY_MODEL_DIR) + "/" + model + ".onnx", model + "_" + level, level);
}

INSTANTIATE_TEST_SUITE_P(Generated, BenchModelPlans,
                         ::testing::Combine(::testing::ValuesIn(Split(KILN_MEMORY_MODELS)),
                                            ::testing::Values("O2", "O3")),
                         [](const auto& info) { return std::get<0>(info.param) + "_" + std::get<1>(info.param); });

// The libonnx-testdata models with >= 10 nodes and static input shapes.
std::vector<fs::path> StaticTestdataModels() {
  std::vector<fs::path> out;
  for (const auto& folder : fs::directory_iterator(testing::kTestdataRoot))
    for (const fs::path& c : testing::TestdataCases(folder.path().filename().string())) {
      std::unique_ptr<Model> m = LoadModel((c / "model.onnx").string());
      if (!m || m->graph().num_nodes() < 10) continue;
      bool static_inputs = true;
      for (const Value* v : m->graph().inputs())
        static_inputs = static_inputs && v->type().shape && v->type().shape->is_static();
      if (static_inputs) out.push_back(c);
    }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(TestdataModelPlans, AreSoundAndWithinFivePercentOfTheLowerBound) {
  const std::vector<fs::path> cases = StaticTestdataModels();
  EXPECT_GE(cases.size(), 30u) << "libonnx-testdata should have dozens of such models";
  for (const fs::path& c : cases) {
    SCOPED_TRACE(c.string());
    CheckModel((c / "model.onnx").string(), c.filename().string());
  }
}

TEST(MemoryPlanFlag, NeedsAFileItCanWrite) {
  const fs::path dir = testing::TempDir("memory_flag");
  auto r = testing::RunKiln("compile " + std::string(KILN_MEMORY_MODEL_DIR) + "/chain.onnx -o " +
                            (dir / "out.onnx").string() + " -O2 --memory-plan " +
                            (dir / "no_such_dir" / "plan.json").string() + " --strict --log-level=error");
  EXPECT_NE(r.rc, 0) << r.output;
  EXPECT_NE(r.output.find("memory.plan: cannot write"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "out.onnx"));
  fs::remove_all(dir);
}

// A plan asked for where no pass writes one (O0 and O1 have no MemoryPlanningPass; --oo.memoryPlanning=false
// skips it), and a fusion report where fusion does not run: exit 3 before compiling, naming why; nothing written.
TEST(MemoryPlanFlag, WithoutAPassThatWritesItTheCompileStopsFirst) {
  const fs::path dir = testing::TempDir("memory_flag_no_writer");
  const std::string base = "compile " + std::string(KILN_MEMORY_MODEL_DIR) + "/chain.onnx -o " +
                           (dir / "out.onnx").string() + " --log-level=error ";
  const std::string plan = " --memory-plan " + (dir / "plan.json").string();
  for (const std::string& args : {"-O0" + plan, "-O1" + plan, "-O2 --oo.memoryPlanning=false" + plan,
                                  "-O1 --fusion-report " + (dir / "fusion.txt").string()}) {
    auto r = testing::RunKiln(base + args);
    EXPECT_EQ(r.rc, 3) << args << ": " << r.output;
    EXPECT_NE(r.output.find("no pass of this compile writes it"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("Nothing was written."), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir / "out.onnx")) << args;
    EXPECT_FALSE(fs::exists(dir / "plan.json")) << args;
  }
  auto r = testing::RunKiln(base + "-O1" + plan);
  EXPECT_NE(r.output.find("MemoryPlanningPass is not in pipeline O1"), std::string::npos) << r.output;
  r = testing::RunKiln(base + "-O2 --oo.memoryPlanning=false" + plan);
  EXPECT_NE(r.output.find("MemoryPlanningPass is skipped (oo.memoryPlanning=false"), std::string::npos) << r.output;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kiln
