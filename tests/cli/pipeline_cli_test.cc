// `kiln compile --print-pipeline`: the shipped O1 pipeline's stages, a user pipeline extending O1 with one pass
// removed, and the short summary `kiln compile` prints on stderr. The O1 tests need the folding plugin (the O1
// pipeline lists it and its passes), built into the build tree's plugin directory.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

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
