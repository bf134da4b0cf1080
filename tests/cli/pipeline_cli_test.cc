// `kiln compile --print-pipeline`: the shipped O1 pipeline's stages, its walks and graph passes as the steps the
// compile takes, a user pipeline extending O1 (by path and by level name) with one pass removed, a bad
// `extends:`, and the short summary `kiln compile` prints on stderr. The O1 tests need the folding plugin (the O1
// pipeline lists it and its passes), built into the build tree's plugin directory.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include "cli/run_kiln.h"

namespace kiln {
namespace {

using testing::RunKiln;
namespace fs = std::filesystem;

const std::string kSample = std::string(KILN_SOURCE_DIR) + "/examples/sample/model.onnx";
const std::string kO1 = std::string(KILN_SOURCE_DIR) + "/configs/pipelines/O1.yaml";

// Where each of `names` first appears in `text` (npos when it does not).
std::vector<size_t> Positions(const std::string& text, const std::vector<std::string>& names) {
  std::vector<size_t> out;
  for (const auto& n : names) out.push_back(text.find(n));
  return out;
}

TEST(PipelineCli, PrintPipelineAtO1PrintsTheO1Stages) {
  auto r = RunKiln("compile --print-pipeline --oo.level=O1");
  ASSERT_EQ(r.rc, 0) << r.output;
  EXPECT_NE(r.output.find("pipeline O1"), std::string::npos) << r.output;
  auto at = Positions(r.output, {"stage Prepare", "stage OptimizeStage1", "stage OptimizeStage2",
                                 "stage BeforeAutofuse"});
  for (size_t p : at) EXPECT_NE(p, std::string::npos) << r.output;
  EXPECT_TRUE(std::is_sorted(at.begin(), at.end())) << r.output;  // in GE's order
  for (const char* pass : {"ConstantFoldingPass", "DimensionComputePass need_fold=false",
                           "CommonSubexpressionEliminationPass", "PotentialConstTakenEffectPass"})
    EXPECT_NE(r.output.find(pass), std::string::npos) << pass << "\n" << r.output;
}

TEST(PipelineCli, DashOChoosesTheLevelAndWinsOverAnEarlierOoLevel) {
  for (const char* flag : {"-O1", "-O 1", "-OO1", "--oo.level=O3 -O1"}) {
    auto r = RunKiln(std::string("compile --print-pipeline ") + flag);
    ASSERT_EQ(r.rc, 0) << flag << "\n" << r.output;
    EXPECT_NE(r.output.find("pipeline O1 "), std::string::npos) << flag << "\n" << r.output;
  }
  auto bad = RunKiln("compile --print-pipeline -O7");
  EXPECT_EQ(bad.rc, 3) << bad.output;
  EXPECT_NE(bad.output.find("'O7' is not one of: O0, O1, O2, O3"), std::string::npos) << bad.output;
}

TEST(PipelineCli, UserPipelineExtendingO1WithOnePassRemovedPrintsWithoutIt) {
  auto dir = testing::TempDir("pipeline_remove");
  auto file = dir / "no_cse.yaml";
  std::ofstream(file) << "extends: " << kO1 << "\n"
                      << "stages:\n"
                      << "  - name: OptimizeStage1\n"
                      << "    remove: CommonSubexpressionEliminationPass\n";
  auto r = RunKiln("compile --print-pipeline --pipeline " + file.string());
  ASSERT_EQ(r.rc, 0) << r.output;
  EXPECT_NE(r.output.find("pipeline O1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("stage OptimizeStage1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("DeadCodeEliminationPass"), std::string::npos) << r.output;  // its neighbours stay
  EXPECT_EQ(r.output.find("CommonSubexpressionEliminationPass"), std::string::npos) << r.output;
  fs::remove_all(dir);
}

TEST(PipelineCli, AUserPipelineExtendsAShippedLevelByName) {
  auto dir = testing::TempDir("pipeline_extends_level");
  auto file = dir / "mine.yaml";
  std::ofstream(file) << "extends: O1\n"
                      << "stages:\n"
                      << "  - name: OptimizeStage1\n"
                      << "    remove: CommonSubexpressionEliminationPass\n";
  auto r = RunKiln("compile --print-pipeline --pipeline " + file.string());
  ASSERT_EQ(r.rc, 0) << r.output;
  EXPECT_NE(r.output.find("pipeline O1 (" + file.string() + ", extends "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("O1.yaml)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("DeadCodeEliminationPass"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("CommonSubexpressionEliminationPass"), std::string::npos) << r.output;
  // And it compiles: the folding plugin comes from the shipped O1's `plugins:`.
  r = RunKiln("compile " + kSample + " -o " + (dir / "out.onnx").string() + " --pipeline " + file.string());
  EXPECT_EQ(r.rc, 0) << r.output;
  EXPECT_NE(r.output.find("kiln: O1: 15 -> "), std::string::npos) << r.output;
  fs::remove_all(dir);
}

TEST(PipelineCli, ExtendsOfANameThatIsNeitherALevelNorAFileExitsThree) {
  auto dir = testing::TempDir("pipeline_extends_bad");
  auto file = dir / "mine.yaml";
  std::ofstream(file) << "extends: O4\n";
  auto r = RunKiln("compile " + kSample + " -o " + (dir / "out.onnx").string() + " --pipeline " + file.string());
  EXPECT_EQ(r.rc, 3) << r.output;
  EXPECT_NE(r.output.find("kiln: error: " + file.string() +
                          ":1:10: extends: 'O4' is neither a level (O0, O1, O2, O3) nor an existing pipeline file ('" +
                          (dir / "O4").string() + "' does not exist)"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir / "out.onnx"));
  fs::remove_all(dir);
}

// The steps --print-pipeline shows, as the labels --dump-after all gives their dumps: "Stage-PassName" for a
// graph pass or a walk of one pass, "Stage-walk" for a walk of several (after-walk passes included).
std::vector<std::string> PrintedSteps(const std::string& print) {
  std::vector<std::string> steps;
  std::string stage;
  std::vector<std::string> walk;
  bool in_walk = false;
  auto end_walk = [&] {
    if (in_walk) steps.push_back(stage + "-" + (walk.size() == 1 ? walk[0] : "walk"));
    in_walk = false;
    walk.clear();
  };
  std::istringstream lines(print);
  std::smatch m;
  for (std::string line; std::getline(lines, line);) {
    bool runs = line.find("skipped:") == std::string::npos;
    if (std::regex_search(line, m, std::regex("^stage (\\S+)"))) {
      end_walk();
      stage = m[1];
    } else if (std::regex_search(line, std::regex("^  walk [0-9]+"))) {
      end_walk();
      in_walk = true;
    } else if (std::regex_search(line, m, std::regex("^    [0-9]+\\. (\\S+)"))) {
      if (runs) walk.push_back(m[1]);
    } else if (std::regex_search(line, m, std::regex("^  [0-9]+\\. (\\S+)"))) {
      end_walk();
      if (runs && line.find("[graph pass") != std::string::npos) steps.push_back(stage + "-" + std::string(m[1]));
    } else if (line != "    after walk:") {
      end_walk();
    }
  }
  end_walk();
  return steps;
}

TEST(PipelineCli, ThePrintedWalksAndGraphPassesAreTheStepsTheCompileTakes) {
  for (const char* level : {"O1", "O3"}) {
    auto dir = testing::TempDir(std::string("pipeline_steps_") + level);
    std::string options = std::string(" --oo.level=") + level + " --oo.disableOptimizations=IdentityEliminationPass";
    auto print = RunKiln("compile --print-pipeline" + options);
    ASSERT_EQ(print.rc, 0) << print.output;
    auto r = RunKiln("compile " + kSample + " -o " + (dir / "out.onnx").string() + options + " --dump-dir " +
                     (dir / "dumps").string());
    ASSERT_EQ(r.rc, 0) << r.output;
    std::vector<std::string> dumped;
    for (const auto& entry : fs::directory_iterator(dir / "dumps")) {
      std::string name = entry.path().stem().string();  // "003-OptimizeStage1-walk"
      dumped.push_back(name);
    }
    std::sort(dumped.begin(), dumped.end());
    for (std::string& name : dumped) name = name.substr(4);
    EXPECT_EQ(dumped, PrintedSteps(print.output)) << print.output;
    fs::remove_all(dir);
  }
  // O1's OptimizeStage1, spelled out: the after-walk pass runs in a walk of its own after the two graph passes.
  auto print = RunKiln("compile --print-pipeline --oo.level=O1");
  std::vector<std::string> steps = PrintedSteps(print.output);
  std::vector<std::string> stage1;
  for (const auto& s : steps)
    if (s.rfind("OptimizeStage1-", 0) == 0) stage1.push_back(s);
  EXPECT_EQ(stage1, (std::vector<std::string>{"OptimizeStage1-InferShapePass", "OptimizeStage1-walk",
                                              "OptimizeStage1-DeadCodeEliminationPass",
                                              "OptimizeStage1-CommonSubexpressionEliminationPass",
                                              "OptimizeStage1-PotentialConstTakenEffectPass"}))
      << print.output;
}

TEST(PipelineCli, PrintPipelineShowsASwitchedOffPassAsSkipped) {
  auto r = RunKiln("compile --print-pipeline --oo.level=O1 --oo.constantFolding=false");
  ASSERT_EQ(r.rc, 0) << r.output;
  EXPECT_NE(r.output.find("ConstantFoldingPass   [skipped: oo.constantFolding=false"), std::string::npos)
      << r.output;
}

TEST(PipelineCli, CompilePrintsAShortSummaryOnStderr) {
  auto dir = testing::TempDir("pipeline_summary");
  auto r = RunKiln("compile " + kSample + " -o " + (dir / "out.onnx").string() + " --oo.level=O0");
  ASSERT_EQ(r.rc, 0) << r.output;
  EXPECT_NE(r.output.find("kiln: O0: 15 -> 15 nodes in "), std::string::npos) << r.output;
  for (const char* stage : {"  Prepare: no changes", "  OptimizeStage1: no changes", "  BeforeAutofuse: no changes"})
    EXPECT_NE(r.output.find(stage), std::string::npos) << stage << "\n" << r.output;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kiln
