// Tests of the run-or-skip decision for a listed pass: switch options, the per-pass switch list, the disable
// list, their order of strength, and unknown names in the lists. Also PlanPipeline, which applies it to stages.
#include "pipeline/pass_gate.h"

#include <gtest/gtest.h>

#include "pipeline/pipeline_plan.h"
#include "pipeline_test_support.h"

namespace kiln {
namespace {

using test_support::ConfigErrorOf;

class PassGateTest : public ::testing::Test {
 protected:
  PassGateTest() { test_support::RegisterOptionsForTests(registry_); }

  PassDecision Decide(std::string_view pass, OptLevel level = OptLevel::kO2) {
    ResolvedOptions options = ResolveOptions(registry_, level, {&graph_, &session_, nullptr});
    return DecidePass(pass, options, catalog_);
  }

  OptionRegistry registry_;
  test_support::FakePassCatalog catalog_;
  OptionLayer graph_{OptionPlace::kGraph};
  OptionLayer session_{OptionPlace::kSession};
};

TEST_F(PassGateTest, AListedPassRunsByDefault) {
  PassDecision folding = Decide("ConstantFoldingPass");
  EXPECT_TRUE(folding.run);
  EXPECT_EQ(folding.reason, "");
  EXPECT_TRUE(Decide("InferShapePass").run);  // no switch option
}

TEST_F(PassGateTest, ItsSwitchOptionOffSkipsIt) {
  session_.Set(registry_, "oo.constantFolding", "false");
  PassDecision folding = Decide("ConstantFoldingPass");
  EXPECT_FALSE(folding.run);
  EXPECT_EQ(folding.reason, "oo.constantFolding=false (session)");
  EXPECT_FALSE(Decide("DimensionComputePass").run);  // same option, same family
  EXPECT_TRUE(Decide("DeadCodeEliminationPass").run);
  EXPECT_TRUE(Decide("InferShapePass").run);
}

TEST_F(PassGateTest, AGraphCanTurnBackOnWhatTheSessionTurnedOff) {
  session_.Set(registry_, "oo.deadCodeElimination", "false");
  graph_.Set(registry_, "oo.deadCodeElimination", "true");
  EXPECT_TRUE(Decide("DeadCodeEliminationPass").run);
}

TEST_F(PassGateTest, ASwitchOptionInactiveAtTheLevelSkipsIt) {
  PassDecision folding = Decide("ConstantFoldingPass", OptLevel::kO0);
  EXPECT_FALSE(folding.run);
  EXPECT_EQ(folding.reason, "oo.constantFolding is not active at O0");
  EXPECT_TRUE(Decide("ConstantFoldingPass", OptLevel::kO1).run);
}

TEST_F(PassGateTest, TheSwitchListTurnsAPassOff) {
  session_.Set(registry_, "oo.optimizationSwitch", "ConstantFoldingPass:off;InferShapePass:off");
  PassDecision folding = Decide("ConstantFoldingPass");
  EXPECT_FALSE(folding.run);
  EXPECT_EQ(folding.reason, "switched off by oo.optimizationSwitch (session)");
  EXPECT_FALSE(Decide("InferShapePass").run);
  EXPECT_TRUE(Decide("DimensionComputePass").run);  // only the named pass, not its family
}

TEST_F(PassGateTest, TheSwitchListTurnsAPassOnOverItsOption) {
  session_.Set(registry_, "oo.constantFolding", "false");
  graph_.Set(registry_, "oo.optimizationSwitch", "ConstantFoldingPass:on");
  PassDecision folding = Decide("ConstantFoldingPass");
  EXPECT_TRUE(folding.run);
  EXPECT_EQ(folding.reason, "switched on by oo.optimizationSwitch (graph) over oo.constantFolding=false (session)");
  EXPECT_FALSE(Decide("DimensionComputePass").run);
}

TEST_F(PassGateTest, TheLastSwitchForAPassWins) {
  session_.Set(registry_, "oo.optimizationSwitch", "ConstantFoldingPass:off;ConstantFoldingPass:on");
  EXPECT_TRUE(Decide("ConstantFoldingPass").run);
  session_.Set(registry_, "oo.optimizationSwitch", "ConstantFoldingPass:on;ConstantFoldingPass:off");
  EXPECT_FALSE(Decide("ConstantFoldingPass").run);
}

TEST_F(PassGateTest, TheDisableListWinsOverEverything) {
  session_.Set(registry_, "oo.disableOptimizations", "IdentityEliminationPass, ConstantFoldingPass");
  session_.Set(registry_, "oo.optimizationSwitch", "ConstantFoldingPass:on");
  PassDecision folding = Decide("ConstantFoldingPass");
  EXPECT_FALSE(folding.run);
  EXPECT_EQ(folding.reason, "disabled by oo.disableOptimizations (session)");
  EXPECT_FALSE(Decide("IdentityEliminationPass").run);
  EXPECT_TRUE(Decide("DeadCodeEliminationPass").run);
}

TEST_F(PassGateTest, UnknownPassesInTheListsAreConfigErrors) {
  session_.Set(registry_, "oo.disableOptimizations", "ConstantFoldPass");
  EXPECT_EQ(ConfigErrorOf([&] { Decide("InferShapePass"); }),
            "option oo.disableOptimizations (session): unknown pass 'ConstantFoldPass'; did you mean "
            "'ConstantFoldingPass'?");
  OptionLayer clean(OptionPlace::kSession);
  session_ = clean;
  graph_.Set(registry_, "oo.optimizationSwitch", "DeadCodePass:off");
  EXPECT_EQ(ConfigErrorOf([&] { Decide("InferShapePass"); }),
            "option oo.optimizationSwitch (graph): unknown pass 'DeadCodePass'");
}

TEST_F(PassGateTest, ASwitchOptionThatIsNotRegisteredIsAPluginError) {
  catalog_.Add("FusePass", "fusion.enable");
  ResolvedOptions options = ResolveOptions(registry_, OptLevel::kO2, {});
  try {
    DecidePass("FusePass", options, catalog_);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kPlugin);
    EXPECT_STREQ(e.what(), "pass FusePass is switched by option fusion.enable, which is not registered");
  }
}

TEST_F(PassGateTest, PlanPipelineDecidesEveryPassOfEveryStage) {
  Pipeline pipeline;
  pipeline.level = OptLevel::kO2;
  pipeline.stages.push_back({"Prepare",
                             {{"InferShapePass", {}, {}}, {"ConstantFoldingPass", {}, {}}},
                             {{"PotentialConstTakenEffectPass", {}, {}}},
                             {}});
  pipeline.stages.push_back({"OptimizeStage1", {{"DeadCodeEliminationPass", {}, {}}}, {}, {}});
  session_.Set(registry_, "oo.constantFolding", "false");
  ResolvedOptions options = ResolveOptions(registry_, OptLevel::kO2, {nullptr, &session_, nullptr});
  PipelinePlan plan = PlanPipeline(pipeline, options, catalog_);
  EXPECT_EQ(plan.level, OptLevel::kO2);
  ASSERT_EQ(plan.stages.size(), 2u);
  ASSERT_EQ(plan.stages[0].passes.size(), 2u);
  EXPECT_TRUE(plan.stages[0].passes[0].decision.run);
  EXPECT_FALSE(plan.stages[0].passes[1].decision.run);
  ASSERT_EQ(plan.stages[0].after_walk.size(), 1u);
  EXPECT_FALSE(plan.stages[0].after_walk[0].decision.run);
  EXPECT_TRUE(plan.stages[1].passes.at(0).decision.run);
}

}  // namespace
}  // namespace kiln
