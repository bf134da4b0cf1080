// Tests of the printed resolved pipeline (`kiln compile --print-pipeline`): stages and passes in order with
// arguments, skipped passes with the reason, options with their sources, and positions on request.
#include "pipeline/pipeline_printer.h"

#include <gtest/gtest.h>

#include "pipeline/pipeline_loader.h"
#include "pipeline_test_support.h"

namespace kiln {
namespace {

class PipelinePrinterTest : public ::testing::Test {
 protected:
  PipelinePrinterTest() {
    RegisterCoreOptions(registry_);
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

TEST_F(PipelinePrinterTest, PrintsStagesPassesAndArgumentsInOrder) {
  std::string text = Print();
  EXPECT_EQ(text.rfind("pipeline O1 (mine.yaml)\nplugins: folding\noptions:\n", 0), 0u) << text;
  EXPECT_NE(text.find("stage Prepare\n"
                      "  1. InferShapePass\n"
                      "  2. DimensionComputePass need_fold=false\n"
                      "  3. ConstantFoldingPass\n"
                      "  after walk:\n"
                      "  1. PotentialConstTakenEffectPass\n"
                      "stage OptimizeStage1\n"
                      "  (no passes)\n"),
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
  EXPECT_NE(text.find("  1. InferShapePass                         [skipped: disabled by oo.disableOptimizations "
                      "(session)]\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  3. ConstantFoldingPass                    [skipped: oo.constantFolding=false (session)]\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  1. PotentialConstTakenEffectPass   [skipped: oo.constantFolding=false (session)]\n"),
            std::string::npos)
      << text;
}

TEST_F(PipelinePrinterTest, PositionsOnRequest) {
  PipelinePrintOptions print;
  print.positions = true;
  std::string text = Print(print);
  EXPECT_NE(text.find("  3. ConstantFoldingPass                    # mine.yaml:10:9\n"), std::string::npos) << text;
  EXPECT_EQ(Print().find("# mine.yaml"), std::string::npos);
}

}  // namespace
}  // namespace kiln
