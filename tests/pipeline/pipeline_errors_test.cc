// Tests of pipeline validation: every error names file:line:column (1-based) and what was expected. Each case
// writes a small file and checks the whole message.
#include <gtest/gtest.h>

#include "pipeline/pipeline_loader.h"
#include "pipeline_test_support.h"

namespace kiln {
namespace {

using test_support::ConfigErrorOf;

class PipelineErrorsTest : public ::testing::Test {
 protected:
  PipelineErrorsTest() { test_support::RegisterOptionsForTests(registry_); }

  // The error loading `text` as "p.yaml", with the directory prefix removed: "p.yaml:3:5: ...".
  std::string ErrorLoading(const std::string& text, const std::string& name = "p.yaml") {
    auto path = dir_.Write(name, text);
    std::string message = ConfigErrorOf([&] { LoadPipelineFile(path, registry_, catalog_); });
    std::string prefix = (dir_.path() / "").string();
    if (message.rfind(prefix, 0) == 0) message.erase(0, prefix.size());
    return message;
  }

  OptionRegistry registry_;
  test_support::FakePassCatalog catalog_;
  test_support::TempDir dir_;
};

TEST_F(PipelineErrorsTest, YamlSyntaxError) {
  // yaml-cpp's own wording (0.7: "end of sequence flow not found") follows the position.
  std::string message = ErrorLoading("level: O1\nstages: [\n");
  EXPECT_EQ(message.rfind("p.yaml:3:1: YAML syntax error: end of sequence", 0), 0u) << message;
}

TEST_F(PipelineErrorsTest, TheRootMustBeAMapping) {
  EXPECT_EQ(ErrorLoading("- level: O1\n"),
            "p.yaml:1:1: expected a pipeline (a mapping with keys level, description, extends, plugins, options, "
            "stages, target, fusion_packs), got a sequence");
  EXPECT_EQ(ErrorLoading(""),
            "p.yaml:1:1: expected a pipeline (a mapping with keys level, description, extends, plugins, options, "
            "stages, target, fusion_packs), got nothing");
}

TEST_F(PipelineErrorsTest, UnknownTopLevelKeySuggestsTheNearest) {
  EXPECT_EQ(ErrorLoading("level: O1\nstage:\n  - name: Prepare\n"),
            "p.yaml:2:1: unknown key 'stage' in a pipeline; did you mean 'stages'? (expected one of: level, "
            "description, extends, plugins, options, stages, target, fusion_packs)");
}

TEST_F(PipelineErrorsTest, UnknownStageKeySuggestsTheNearest) {
  EXPECT_EQ(ErrorLoading("level: O1\nstages:\n  - name: Prepare\n    pases: [InferShapePass]\n"),
            "p.yaml:4:5: unknown key 'pases' in a stage; did you mean 'passes'? (expected one of: name, passes, "
            "after_walk, replace, remove, insert_before, insert_after, prepend, append)");
}

TEST_F(PipelineErrorsTest, UnknownPassKeySuggestsTheNearest) {
  EXPECT_EQ(ErrorLoading("level: O1\nstages:\n  - name: Prepare\n    passes:\n"
                         "      - {name: ConstantFoldingPass, arg: {need_fold: true}}\n"),
            "p.yaml:5:37: unknown key 'arg' in a pass; did you mean 'args'? (expected one of: name, args)");
}

TEST_F(PipelineErrorsTest, DuplicateKey) {
  EXPECT_EQ(ErrorLoading("level: O1\nlevel: O2\n"), "p.yaml:2:1: duplicate key 'level' (first at line 1)");
}

TEST_F(PipelineErrorsTest, UnknownPassListsTheRegisteredOnes) {
  EXPECT_EQ(ErrorLoading("level: O1\nstages:\n  - name: Prepare\n    passes:\n      - InferShapePass\n"
                         "      - ConstFoldingPass\n"),
            "p.yaml:6:9: unknown pass 'ConstFoldingPass'; did you mean 'ConstantFoldingPass'? (registered passes: "
            "AutoFusionPass, CommonSubexpressionEliminationPass, ConstantFoldingPass, ConstantNodeToInitializerPass, "
            "DeadCodeEliminationPass, DimensionAdjustPass, DimensionComputePass, FuseBatchNormIntoConvPass, "
            "IdentityEliminationPass, InferShapePass, MemoryPlanningPass, PatternFusionPass, PotentialConstTakenEffectPass, "
            "ReplaceWithEmptyConstPass, ReshapeChainMergePass, ReshapeShapeChainPass, SqueezeUnsqueezePairPass, TargetFormatPass, "
            "TransposeGemmFoldPass, TransposePairMergePass, TransposePushPass)");
}

TEST_F(PipelineErrorsTest, UnknownPassInAnAfterWalkList) {
  std::string message = ErrorLoading("level: O1\nstages:\n  - name: Prepare\n    after_walk: [Nope]\n");
  EXPECT_EQ(message.rfind("p.yaml:4:18: unknown pass 'Nope' (registered passes: AutoFusionPass, CommonSub", 0), 0u) << message;
}

TEST_F(PipelineErrorsTest, PassArgumentsAreCheckedByThePass) {
  EXPECT_EQ(ErrorLoading("level: O1\nstages:\n  - name: Prepare\n    passes:\n"
                         "      - {name: DimensionComputePass, args: {need_fold: maybe}}\n"),
            "p.yaml:5:45: DimensionComputePass: need_fold: 'maybe' is not one of: true, false");
  EXPECT_EQ(ErrorLoading("level: O1\nstages:\n  - name: Prepare\n    passes:\n"
                         "      - {name: DimensionComputePass, args: {fold: true}}\n"),
            "p.yaml:5:45: DimensionComputePass: unknown argument 'fold' (expected: need_fold)");
}

TEST_F(PipelineErrorsTest, APassMappingNeedsAName) {
  EXPECT_EQ(ErrorLoading("level: O1\nstages:\n  - name: Prepare\n    passes:\n      - args: {need_fold: true}\n"),
            "p.yaml:5:9: a pass written as a mapping needs a 'name' key");
}

TEST_F(PipelineErrorsTest, WrongTypes) {
  EXPECT_EQ(ErrorLoading("level: O1\nstages:\n  name: Prepare\n"),
            "p.yaml:3:3: expected 'stages' to be a sequence of stages (- name: Prepare ...), got a mapping");
  EXPECT_EQ(ErrorLoading("level: O1\nstages:\n  - name: Prepare\n    passes: InferShapePass\n"),
            "p.yaml:4:13: expected 'passes' to be a sequence of passes, got a scalar ('InferShapePass')");
  EXPECT_EQ(ErrorLoading("level: [O1]\n"), "p.yaml:1:8: expected a level (O0, O1, O2 or O3), got a sequence");
  EXPECT_EQ(ErrorLoading("level: O1\nplugins: {folding: yes}\n"),
            "p.yaml:2:10: expected 'plugins' to be a sequence of plugin names or paths, got a mapping");
  EXPECT_EQ(ErrorLoading("level: O1\noptions: [oo.constantFolding]\n"),
            "p.yaml:2:10: expected 'options' to be a mapping of option: value, got a sequence");
  EXPECT_EQ(ErrorLoading("level: O1\nstages:\n  - Prepare\n"),
            "p.yaml:3:5: expected a stage (a mapping with 'name' and 'passes'), got a scalar ('Prepare')");
  EXPECT_EQ(ErrorLoading("level: O1\nstages:\n  - name: Prepare\n    passes:\n"
                         "      - {name: DimensionComputePass, args: [need_fold]}\n"),
            "p.yaml:5:44: expected 'args' to be a mapping of argument: value, got a sequence");
  EXPECT_EQ(ErrorLoading("level: O1\nstages:\n  - name: [Prepare]\n"),
            "p.yaml:3:11: expected a stage name, got a sequence");
  EXPECT_EQ(ErrorLoading("level: O1\noptions:\n  oo.constantFolding: [true]\n"),
            "p.yaml:3:23: expected a value for option oo.constantFolding (true, false), got a sequence");
}

TEST_F(PipelineErrorsTest, LevelMustBeKnownAndPresent) {
  EXPECT_EQ(ErrorLoading("level: O5\n"), "p.yaml:1:8: level 'O5' is not one of: O0, O1, O2, O3");
  EXPECT_EQ(ErrorLoading("stages: []\n"), "p.yaml:1:1: missing key 'level' (expected O0, O1, O2 or O3)");
}

TEST_F(PipelineErrorsTest, UnknownOptionSuggestsTheNearest) {
  EXPECT_EQ(ErrorLoading("level: O1\noptions:\n  oo.constantFoldin: true\n"),
            "p.yaml:3:3: unknown option 'oo.constantFoldin'; did you mean 'oo.constantFolding'?");
}

TEST_F(PipelineErrorsTest, AFoldingOptionWithoutTheFoldingPluginIsUnknown) {
  // The host registers none of the folding plugin's options: without the plugin, a pipeline naming one is refused.
  OptionRegistry core;
  RegisterCoreOptions(core);
  auto path = dir_.Write("p.yaml", "level: O1\noptions:\n  oo.memoryPolicy: MemoryPriority\n");
  EXPECT_EQ(ConfigErrorOf([&] { LoadPipelineFile(path, core, catalog_); }),
            path.string() + ":3:3: unknown option 'oo.memoryPolicy'");
  // The caller may word the message (the Compiler adds which plugins are loaded); the position stays.
  PipelineLoadOptions load;
  load.unknown_option_message = [](std::string_view name) { return "no '" + std::string(name) + "' here"; };
  EXPECT_EQ(ConfigErrorOf([&] { LoadPipelineFile(path, core, catalog_, load); }),
            path.string() + ":3:3: no 'oo.memoryPolicy' here");
}

TEST_F(PipelineErrorsTest, RefusedOptionValueNamesTheAllowedValues) {
  EXPECT_EQ(ErrorLoading("level: O1\noptions:\n  oo.constantFolding: maybe\n"),
            "p.yaml:3:23: option oo.constantFolding: 'maybe' is not one of: true, false");
  EXPECT_EQ(ErrorLoading("level: O1\noptions:\n  oo.memoryPolicy: Fast\n"),
            "p.yaml:3:20: option oo.memoryPolicy: 'Fast' is not one of: Balanced, MemoryPriority");
  EXPECT_EQ(ErrorLoading("level: O1\noptions:\n  oo.optimizationSwitch: [ConstantFoldingPass]\n"),
            "p.yaml:3:26: option oo.optimizationSwitch: 'ConstantFoldingPass' has an item 'ConstantFoldingPass' "
            "that is not PassName:on|off (expected PassName:on|off items separated by ';')");
}

TEST_F(PipelineErrorsTest, OptionsThatAPipelineMayNotSet) {
  EXPECT_EQ(ErrorLoading("level: O1\noptions:\n  oo.level: O3\n"),
            "p.yaml:3:3: option oo.level may not be set in a pipeline file (it may be set in: cli, session, graph)");
}

TEST_F(PipelineErrorsTest, UnknownStageSuggestsTheNearest) {
  EXPECT_EQ(ErrorLoading("level: O1\nstages:\n  - name: OptimiseStage1\n"),
            "p.yaml:3:11: unknown stage 'OptimiseStage1'; did you mean 'OptimizeStage1'? (expected one of: Prepare, "
            "OptimizeStage1, OptimizeStage2, BeforeAutofuse, Autofuse, AfterAutofuse, Build)");
}

TEST_F(PipelineErrorsTest, AStageTwiceInOneFile) {
  EXPECT_EQ(ErrorLoading("level: O1\nstages:\n  - name: Prepare\n  - name: Prepare\n"),
            "p.yaml:4:11: stage 'Prepare' appears twice in this file (first at line 3)");
}

TEST_F(PipelineErrorsTest, AStageNeedsAName) {
  EXPECT_EQ(ErrorLoading("level: O1\nstages:\n  - passes: []\n"), "p.yaml:3:5: a stage needs a 'name' key");
}

TEST_F(PipelineErrorsTest, EditsNeedAnInheritedStage) {
  EXPECT_EQ(ErrorLoading("level: O1\nstages:\n  - name: Prepare\n    append: [InferShapePass]\n"),
            "p.yaml:4:5: 'append' edits a stage inherited through 'extends', but this file extends nothing; list the "
            "stage's passes under 'passes'");
  dir_.Write("base.yaml", "level: O1\nstages:\n  - name: Prepare\n");
  EXPECT_EQ(ErrorLoading("extends: base.yaml\nstages:\n  - name: OptimizeStage1\n    remove: InferShapePass\n"),
            "p.yaml:4:5: 'remove' edits a stage inherited through 'extends', but stage 'OptimizeStage1' is not in " +
                (dir_.path() / "base.yaml").string() + "; list the stage's passes under 'passes'");
}

class PipelineEditErrorsTest : public PipelineErrorsTest {
 protected:
  PipelineEditErrorsTest() {
    dir_.Write("base.yaml",
               "level: O1\nstages:\n  - name: Prepare\n    passes: [InferShapePass, ConstantFoldingPass]\n");
  }
  std::string ErrorEditing(const std::string& stage_entry) {
    return ErrorLoading("extends: base.yaml\nstages:\n  - name: Prepare\n" + stage_entry);
  }
};

TEST_F(PipelineEditErrorsTest, PassesOnAnInheritedStageMustBeAnEdit) {
  EXPECT_EQ(ErrorEditing("    passes: [InferShapePass]\n"),
            "p.yaml:4:5: stage 'Prepare' is inherited from " + (dir_.path() / "base.yaml").string() +
                "; change its passes with replace, remove, insert_before, insert_after, prepend, append (or list "
                "them all under 'replace')");
}

TEST_F(PipelineEditErrorsTest, RemovingAPassTheStageLacks) {
  EXPECT_EQ(ErrorEditing("    remove: [InferShapePass, ConstantFoldingPas]\n"),
            "p.yaml:4:30: cannot remove: stage 'Prepare' has no pass 'ConstantFoldingPas'; did you mean "
            "'ConstantFoldingPass'? (it has: ConstantFoldingPass)");
}

TEST_F(PipelineEditErrorsTest, InsertingNextToAPassTheStageLacks) {
  EXPECT_EQ(ErrorEditing("    insert_after:\n      DeadCodeEliminationPass: [IdentityEliminationPass]\n"),
            "p.yaml:5:7: cannot insert after: stage 'Prepare' has no pass 'DeadCodeEliminationPass' (it has: "
            "InferShapePass, ConstantFoldingPass)");
  EXPECT_EQ(ErrorEditing("    insert_before: [IdentityEliminationPass]\n"),
            "p.yaml:4:20: expected 'insert_before' to be a mapping of AnchorPass: [passes to insert], got a sequence");
}

TEST_F(PipelineEditErrorsTest, RemoveComesBeforeInsertSoARemovedAnchorIsGone) {
  EXPECT_EQ(
      ErrorEditing("    insert_before: {InferShapePass: [IdentityEliminationPass]}\n    remove: InferShapePass\n"),
      "p.yaml:4:21: cannot insert before: stage 'Prepare' has no pass 'InferShapePass' (it has: "
      "ConstantFoldingPass)");
}

TEST_F(PipelineEditErrorsTest, UnknownPassInAnEdit) {
  std::string message = ErrorEditing("    append: [FoldEverythingPass]\n");
  EXPECT_EQ(message.rfind("p.yaml:4:14: unknown pass 'FoldEverythingPass' (registered passes: ", 0), 0u) << message;
}

}  // namespace
}  // namespace kiln
