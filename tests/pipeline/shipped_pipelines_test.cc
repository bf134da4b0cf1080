// Tests that the shipped configs/pipelines/O0..O3 load against a catalog that knows the folding family's pass
// names, and that they place the passes as GE does.
#include <gtest/gtest.h>

#include "pipeline/pipeline_loader.h"
#include "pipeline_test_support.h"

namespace kiln {
namespace {

using test_support::Names;
using Strings = std::vector<std::string>;

class ShippedPipelinesTest : public ::testing::Test {
 protected:
  ShippedPipelinesTest() { test_support::RegisterOptionsForTests(registry_); }
  Pipeline Load(const std::string& level) {
    return LoadPipelineFile(std::filesystem::path(KILN_PIPELINES_DIR) / (level + ".yaml"), registry_, catalog_);
  }
  OptionRegistry registry_;
  test_support::FakePassCatalog catalog_;
};

TEST_F(ShippedPipelinesTest, EachLoadsAtItsLevelWithGesStages) {
  for (OptLevel level : kAllOptLevels) {
    Pipeline p = Load(std::string(OptLevelName(level)));
    EXPECT_EQ(p.level, level);
    // GE's four stages at every level, and Autofuse, AfterAutofuse (empty at O2) and Build from O2 on.
    Strings expected{"Prepare", "OptimizeStage1", "OptimizeStage2", "BeforeAutofuse"};
    if (level >= OptLevel::kO2) expected.insert(expected.end(), {"Autofuse", "AfterAutofuse", "Build"});
    EXPECT_EQ(Names(p.stages), expected) << OptLevelName(level);
    EXPECT_TRUE(p.warnings.empty()) << OptLevelName(level);
  }
}

TEST_F(ShippedPipelinesTest, O0RunsNothing) {
  Pipeline p = Load("O0");
  for (const PipelineStage& stage : p.stages) {
    EXPECT_TRUE(stage.passes.empty()) << stage.name;
    EXPECT_TRUE(stage.after_walk.empty()) << stage.name;
  }
  EXPECT_TRUE(p.plugins.empty());
}

TEST_F(ShippedPipelinesTest, O1PlacesTheFoldingFamilyAsGeDoes) {
  Pipeline p = Load("O1");
  ASSERT_EQ(p.plugins.size(), 1u);
  EXPECT_EQ(p.plugins[0].name, "folding");
  const PipelineStage* prepare = p.FindStage("Prepare");
  EXPECT_EQ(Names(prepare->passes),
            (Strings{"InferShapePass", "ReplaceWithEmptyConstPass", "DimensionComputePass", "ConstantFoldingPass"}));
  ASSERT_NE(prepare->passes[2].FindArg("need_fold"), nullptr);
  EXPECT_EQ(prepare->passes[2].FindArg("need_fold")->value, "false");
  EXPECT_EQ(Names(prepare->after_walk), Strings{"PotentialConstTakenEffectPass"});
  Strings stage1 = Names(p.FindStage("OptimizeStage1")->passes);
  EXPECT_EQ(stage1.front(), "InferShapePass");
  for (const char* pass : {"ConstantFoldingPass", "DimensionAdjustPass", "DeadCodeEliminationPass",
                           "CommonSubexpressionEliminationPass", "IdentityEliminationPass"}) {
    EXPECT_NE(std::find(stage1.begin(), stage1.end(), pass), stage1.end()) << pass;
  }
  // Transposes are pushed in the same walk as the pair merge that cancels them when they meet.
  auto push = std::find(stage1.begin(), stage1.end(), "TransposePushPass");
  ASSERT_NE(push, stage1.end());
  ASSERT_NE(push + 1, stage1.end());
  EXPECT_EQ(*(push + 1), "TransposePairMergePass");
  EXPECT_EQ(Names(p.FindStage("OptimizeStage2")->passes), (Strings{"InferShapePass", "ConstantFoldingPass"}));
  EXPECT_EQ(Names(p.FindStage("BeforeAutofuse")->passes), (Strings{"InferShapePass", "ConstantFoldingPass"}));
}

TEST_F(ShippedPipelinesTest, HigherLevelsExtendTheLowerAndAddPasses) {
  Pipeline o1 = Load("O1"), o2 = Load("O2"), o3 = Load("O3");
  EXPECT_EQ(o2.files.size(), 2u);
  EXPECT_EQ(o3.files.size(), 3u);
  EXPECT_EQ(Names(o2.FindStage("Prepare")->passes), Names(o1.FindStage("Prepare")->passes));
  EXPECT_GT(o2.FindStage("OptimizeStage2")->passes.size(), o1.FindStage("OptimizeStage2")->passes.size());
  EXPECT_GT(o3.FindStage("OptimizeStage2")->passes.size(), o2.FindStage("OptimizeStage2")->passes.size());
  EXPECT_EQ(Names(o3.FindStage("OptimizeStage2")->passes),
            (Strings{"InferShapePass", "ConstantFoldingPass", "DimensionAdjustPass", "IdentityEliminationPass",
                     "DeadCodeEliminationPass", "CommonSubexpressionEliminationPass"}));
  EXPECT_EQ(o1.FindStage("Autofuse"), nullptr);
  EXPECT_EQ(Names(o2.FindStage("Autofuse")->passes),
            (Strings{"InferShapePass", "PatternFusionPass", "AutoFusionPass", "DeadCodeEliminationPass"}));
  EXPECT_EQ(Names(o3.FindStage("Autofuse")->passes), Names(o2.FindStage("Autofuse")->passes));
  EXPECT_EQ(o2.plugins.back().name, "memory");
  EXPECT_EQ(o2.plugins[o2.plugins.size() - 2].name, "fusion");
  EXPECT_EQ(o1.FindStage("Build"), nullptr);
  EXPECT_EQ(Names(o2.FindStage("Build")->passes), (Strings{"InferShapePass", "MemoryPlanningPass"}));
  EXPECT_EQ(Names(o3.FindStage("Build")->passes), Names(o2.FindStage("Build")->passes));
  // Target formats after fusion, before the memory plan: O3 only (and only with a target, which the pass checks).
  EXPECT_TRUE(o2.FindStage("AfterAutofuse")->passes.empty());
  EXPECT_EQ(Names(o3.FindStage("AfterAutofuse")->passes), (Strings{"TargetFormatPass"}));
  Strings o1_stage1 = Names(o1.FindStage("OptimizeStage1")->passes);
  auto merge = std::find(o1_stage1.begin(), o1_stage1.end(), "TransposePairMergePass");
  ASSERT_NE(merge, o1_stage1.end());
  ASSERT_NE(merge + 1, o1_stage1.end());
  EXPECT_EQ(*(merge + 1), "TransposeGemmFoldPass");
}

TEST_F(ShippedPipelinesTest, AUserFileExtendingO1CanRemoveAPass) {
  test_support::TempDir dir;
  auto user = dir.Write("mine.yaml", "extends: " + (std::filesystem::path(KILN_PIPELINES_DIR) / "O1.yaml").string() +
                                         "\nstages:\n  - name: OptimizeStage1\n"
                                         "    remove: CommonSubexpressionEliminationPass\n");
  Pipeline p = LoadPipelineFile(user, registry_, catalog_);
  Strings stage1 = Names(p.FindStage("OptimizeStage1")->passes);
  EXPECT_EQ(std::find(stage1.begin(), stage1.end(), "CommonSubexpressionEliminationPass"), stage1.end());
  EXPECT_EQ(stage1.size(), Names(Load("O1").FindStage("OptimizeStage1")->passes).size() - 1);
}

}  // namespace
}  // namespace kiln
