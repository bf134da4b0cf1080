// Tests of the printed resolved pipeline (`kiln compile --print-pipeline`): stages in run order, graph passes on
// their own and each node walk as a group (after-walk passes in the last), arguments, skipped passes with the
// reason where they are listed, options with their sources, and positions on request.
#include "pipeline/pipeline_printer.h"

#include <gtest/gtest.h>

#include "pipeline/pipeline_loader.h"
#include "pipeline_test_support.h"

namespace kiln {
namespace {

class PipelinePrinterTest : public ::testing::Test {
 protected:
  PipelinePrinterTest() {
    test_support::RegisterOptionsForTests(registry_);
    pipeline_ = LoadPipelineText(
        "level: O1\n"
        "plugins: [folding]\n"
        "options:\n"
        "  oo.memoryPolicy: MemoryPriority\n"
        "stages:\n"
        "  - name: Prepare\n"
        "    passes:\n"
        "      - InferShapePass\n"
        "      - {name: DimensionComputePass, args: {need_fold: false}}\n"
        "      - ConstantFoldingPass\n"
        "    after_walk: [PotentialConstTakenEffectPass]\n"
        "  - name: OptimizeStage1\n",
        "mine.yaml", ".", registry_, catalog_);
  }

  std::string Print(const PipelinePrintOptions& print = {}) {
    ResolvedOptions options = ResolveOptions(registry_, pipeline_.level, {nullptr, &session_, &pipeline_.options});
    return PrintPipeline(pipeline_, PlanPipeline(pipeline_, options, catalog_), options, print);
  }

  OptionRegistry registry_;
  test_support::FakePassCatalog catalog_;
  OptionLayer session_{OptionPlace::kSession};
  Pipeline pipeline_;
};

TEST_F(PipelinePrinterTest, PrintsGraphPassesAloneAndEachWalkAsAGroupInRunOrder) {
  std::string text = Print();
  EXPECT_EQ(text.rfind("pipeline O1 (mine.yaml)\nplugins: folding\noptions:\n", 0), 0u) << text;
  EXPECT_NE(text.find("stage Prepare\n"
                      "  1. InferShapePass                           [graph pass]\n"
                      "  walk 1:\n"
                      "    2. DimensionComputePass need_fold=false\n"
                      "    3. ConstantFoldingPass\n"
                      "    after walk:\n"
                      "    1. PotentialConstTakenEffectPass\n"
                      "stage OptimizeStage1\n"
                      "  (no passes)\n"),
            std::string::npos)
      << text;
}

TEST_F(PipelinePrinterTest, AGraphPassBetweenNodePassesSplitsTheWalk) {
  pipeline_ = LoadPipelineText(
      "level: O1\n"
      "stages:\n"
      "  - name: OptimizeStage1\n"
      "    passes: [IdentityEliminationPass, DeadCodeEliminationPass, ReshapeChainMergePass,\n"
      "             CommonSubexpressionEliminationPass]\n"
      "    after_walk: [PotentialConstTakenEffectPass]\n"
      "  - name: OptimizeStage2\n"
      "    passes: [ConstantFoldingPass, InferShapePass, DimensionAdjustPass]\n"
      "    after_walk: [PotentialConstTakenEffectPass]\n",
      "split.yaml", ".", registry_, catalog_);
  std::string text = Print();
  // The after-walk pass follows the last graph pass in a walk of its own.
  EXPECT_NE(text.find("stage OptimizeStage1\n"
                      "  walk 1:\n"
                      "    1. IdentityEliminationPass\n"
                      "  2. DeadCodeEliminationPass              [graph pass]\n"
                      "  walk 2:\n"
                      "    3. ReshapeChainMergePass\n"
                      "  4. CommonSubexpressionEliminationPass   [graph pass]\n"
                      "  walk 3 (after-walk passes only):\n"
                      "    after walk:\n"
                      "    1. PotentialConstTakenEffectPass\n"
                      "stage OptimizeStage2\n"
                      "  walk 1:\n"
                      "    1. ConstantFoldingPass\n"
                      "  2. InferShapePass                    [graph pass]\n"
                      "  walk 2:\n"
                      "    3. DimensionAdjustPass\n"
                      "    after walk:\n"
                      "    1. PotentialConstTakenEffectPass\n"),
            std::string::npos)
      << text;
}

TEST_F(PipelinePrinterTest, ASkippedGraphPassSplitsNothingAndAWalkThatCannotRunIsNoGroup) {
  pipeline_ = LoadPipelineText(
      "level: O1\n"
      "stages:\n"
      "  - name: Prepare\n"
      "    passes: [IdentityEliminationPass, DeadCodeEliminationPass, ReshapeChainMergePass]\n"
      "  - name: OptimizeStage1\n"
      "    passes: [InferShapePass, ConstantFoldingPass]\n"
      "    after_walk: [PotentialConstTakenEffectPass]\n",
      "skips.yaml", ".", registry_, catalog_);
  session_.Set(registry_, "oo.deadCodeElimination", "false");
  session_.Set(registry_, "oo.constantFolding", "false");
  std::string text = Print();
  EXPECT_NE(text.find("stage Prepare\n"
                      "  walk 1:\n"
                      "    1. IdentityEliminationPass\n"
                      "    2. DeadCodeEliminationPass   [graph pass; skipped: oo.deadCodeElimination=false (session)]\n"
                      "    3. ReshapeChainMergePass\n"
                      "stage OptimizeStage1\n"
                      "  1. InferShapePass                  [graph pass]\n"
                      "  2. ConstantFoldingPass             [skipped: oo.constantFolding=false (session)]\n"
                      "  after walk:\n"
                      "  1. PotentialConstTakenEffectPass   [skipped: oo.constantFolding=false (session)]\n"),
            std::string::npos)
      << text;
}

TEST_F(PipelinePrinterTest, ShowsOptionsWithTheirSources) {
  session_.Set(registry_, "oo.deadCodeElimination", "false", "--oo.deadCodeElimination");
  std::string text = Print();
  EXPECT_NE(text.find("  oo.memoryPolicy                   = MemoryPriority (pipeline mine.yaml:4:3)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  oo.deadCodeElimination            = false          (session --oo.deadCodeElimination)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  oo.constantFolding                = true           (default)\n"), std::string::npos) << text;
}

TEST_F(PipelinePrinterTest, MarksSkippedPassesWithTheReason) {
  session_.Set(registry_, "oo.constantFolding", "false");
  session_.Set(registry_, "oo.disableOptimizations", "InferShapePass");
  std::string text = Print();
  // Nothing of Prepare runs: no walk is printed, only the passes with their reasons.
  EXPECT_NE(text.find("stage Prepare\n"
                      "  1. InferShapePass                         [graph pass; skipped: disabled by "
                      "oo.disableOptimizations (session)]\n"
                      "  2. DimensionComputePass need_fold=false   [skipped: oo.constantFolding=false (session)]\n"
                      "  3. ConstantFoldingPass                    [skipped: oo.constantFolding=false (session)]\n"
                      "  after walk:\n"
                      "  1. PotentialConstTakenEffectPass          [skipped: oo.constantFolding=false (session)]\n"),
            std::string::npos)
      << text;
}

TEST_F(PipelinePrinterTest, PositionsOnRequest) {
  PipelinePrintOptions print;
  print.positions = true;
  std::string text = Print(print);
  EXPECT_NE(text.find("    3. ConstantFoldingPass                    # mine.yaml:10:9\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  1. InferShapePass                           [graph pass]   # mine.yaml:8:9\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(Print().find("# mine.yaml"), std::string::npos);
}

}  // namespace
}  // namespace kiln
