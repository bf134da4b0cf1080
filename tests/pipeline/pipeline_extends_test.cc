// Tests of `extends`: a child's replace, append, prepend, insert_before, insert_after and remove edits on the
// parent's stages, after_walk replacement, new stages, merged options and plugins, chains, cycles and missing files.
#include <gtest/gtest.h>

#include "pipeline/pipeline_loader.h"
#include "pipeline_test_support.h"

namespace kiln {
namespace {

using test_support::ConfigErrorOf;
using test_support::Names;
using Strings = std::vector<std::string>;

// The parent every test extends: Prepare [InferShape, ConstantFolding, IdentityElimination] + after_walk.
constexpr const char* kBase =
    "level: O1\n"
    "plugins: [folding]\n"
    "options:\n"
    "  oo.memoryPolicy: MemoryPriority\n"
    "  oo.disableOptimizations: IdentityEliminationPass\n"
    "stages:\n"
    "  - name: Prepare\n"
    "    passes: [InferShapePass, ConstantFoldingPass, IdentityEliminationPass]\n"
    "    after_walk: [PotentialConstTakenEffectPass]\n"
    "  - name: OptimizeStage1\n"
    "    passes: [DeadCodeEliminationPass]\n";

class PipelineExtendsTest : public ::testing::Test {
 protected:
  PipelineExtendsTest() {
    test_support::RegisterOptionsForTests(registry_);
    dir_.Write("base.yaml", kBase);
  }

  // Loads "child.yaml" = `extends: base.yaml` + `stages:` + the given stage entries.
  Pipeline LoadChild(const std::string& stages, const std::string& head = "") {
    return LoadPipelineFile(dir_.Write("child.yaml", "extends: base.yaml\n" + head + "stages:\n" + stages), registry_,
                            catalog_);
  }
  Strings Prepare(const Pipeline& p) { return Names(p.FindStage("Prepare")->passes); }
  std::string Child() const { return (dir_.path() / "child.yaml").string(); }

  OptionRegistry registry_;
  test_support::FakePassCatalog catalog_;
  test_support::TempDir dir_;
};

TEST_F(PipelineExtendsTest, AChildWithNoEditsIsItsParent) {
  Pipeline p = LoadPipelineFile(dir_.Write("child.yaml", "extends: base.yaml\n"), registry_, catalog_);
  EXPECT_EQ(p.level, OptLevel::kO1);
  EXPECT_EQ(Prepare(p), (Strings{"InferShapePass", "ConstantFoldingPass", "IdentityEliminationPass"}));
  EXPECT_EQ(p.files, (Strings{Child(), (dir_.path() / "base.yaml").string()}));
  // Items keep the position in the file that wrote them.
  EXPECT_EQ(p.FindStage("Prepare")->passes[1].pos.ToString(), (dir_.path() / "base.yaml").string() + ":8:30");
}

TEST_F(PipelineExtendsTest, Replace) {
  Pipeline p = LoadChild("  - name: Prepare\n    replace: [DimensionComputePass]\n");
  EXPECT_EQ(Prepare(p), Strings{"DimensionComputePass"});
  EXPECT_EQ(Names(p.FindStage("Prepare")->after_walk), Strings{"PotentialConstTakenEffectPass"});
  EXPECT_EQ(p.FindStage("Prepare")->passes[0].pos.ToString(), Child() + ":4:15");
}

TEST_F(PipelineExtendsTest, ReplaceWithNothingEmptiesTheStage) {
  Pipeline p = LoadChild("  - name: Prepare\n    replace: []\n");
  EXPECT_TRUE(Prepare(p).empty());
}

TEST_F(PipelineExtendsTest, Append) {
  Pipeline p = LoadChild(
      "  - name: Prepare\n    append: [DeadCodeEliminationPass, {name: DimensionComputePass, "
      "args: {need_fold: true}}]\n");
  EXPECT_EQ(Prepare(p), (Strings{"InferShapePass", "ConstantFoldingPass", "IdentityEliminationPass",
                                 "DeadCodeEliminationPass", "DimensionComputePass"}));
  EXPECT_EQ(p.FindStage("Prepare")->passes[4].FindArg("need_fold")->value, "true");
}

TEST_F(PipelineExtendsTest, Prepend) {
  Pipeline p = LoadChild("  - name: OptimizeStage1\n    prepend: [InferShapePass]\n");
  EXPECT_EQ(Names(p.FindStage("OptimizeStage1")->passes), (Strings{"InferShapePass", "DeadCodeEliminationPass"}));
}

TEST_F(PipelineExtendsTest, InsertBefore) {
  Pipeline p = LoadChild(
      "  - name: Prepare\n    insert_before:\n      ConstantFoldingPass: [ReplaceWithEmptyConstPass, "
      "DimensionComputePass]\n");
  EXPECT_EQ(Prepare(p), (Strings{"InferShapePass", "ReplaceWithEmptyConstPass", "DimensionComputePass",
                                 "ConstantFoldingPass", "IdentityEliminationPass"}));
}

TEST_F(PipelineExtendsTest, InsertAfter) {
  Pipeline p = LoadChild(
      "  - name: Prepare\n    insert_after:\n      ConstantFoldingPass: [DimensionAdjustPass]\n"
      "      IdentityEliminationPass: [DeadCodeEliminationPass]\n");
  EXPECT_EQ(Prepare(p), (Strings{"InferShapePass", "ConstantFoldingPass", "DimensionAdjustPass",
                                 "IdentityEliminationPass", "DeadCodeEliminationPass"}));
}

TEST_F(PipelineExtendsTest, InsertGoesNextToTheFirstOccurrence) {
  Pipeline p = LoadChild(
      "  - name: Prepare\n    append: [ConstantFoldingPass]\n"
      "    insert_after: {ConstantFoldingPass: [DimensionAdjustPass]}\n");
  // insert_after applies before append, so the appended ConstantFoldingPass is not the anchor.
  EXPECT_EQ(Prepare(p), (Strings{"InferShapePass", "ConstantFoldingPass", "DimensionAdjustPass",
                                 "IdentityEliminationPass", "ConstantFoldingPass"}));
}

TEST_F(PipelineExtendsTest, RemoveOneName) {
  Pipeline p = LoadChild("  - name: Prepare\n    remove: IdentityEliminationPass\n");
  EXPECT_EQ(Prepare(p), (Strings{"InferShapePass", "ConstantFoldingPass"}));
}

TEST_F(PipelineExtendsTest, RemoveSeveralNamesIncludingAnAfterWalkPass) {
  Pipeline p = LoadChild("  - name: Prepare\n    remove: [InferShapePass, PotentialConstTakenEffectPass]\n");
  EXPECT_EQ(Prepare(p), (Strings{"ConstantFoldingPass", "IdentityEliminationPass"}));
  EXPECT_TRUE(p.FindStage("Prepare")->after_walk.empty());
}

TEST_F(PipelineExtendsTest, EditsApplyInTheDocumentedOrder) {
  // Written in reverse; applied replace, remove, insert_before, insert_after, prepend, append.
  Pipeline p = LoadChild(
      "  - name: Prepare\n"
      "    append: [DeadCodeEliminationPass]\n"
      "    prepend: [InferShapePass]\n"
      "    insert_after: {DimensionComputePass: [DimensionAdjustPass]}\n"
      "    insert_before: {ConstantFoldingPass: [DimensionComputePass]}\n"
      "    remove: IdentityEliminationPass\n"
      "    replace: [ConstantFoldingPass, IdentityEliminationPass]\n");
  EXPECT_EQ(Prepare(p), (Strings{"InferShapePass", "DimensionComputePass", "DimensionAdjustPass", "ConstantFoldingPass",
                                 "DeadCodeEliminationPass"}));
}

TEST_F(PipelineExtendsTest, AfterWalkReplacesTheParentsList) {
  Pipeline p = LoadChild(
      "  - name: Prepare\n    after_walk: []\n  - name: OptimizeStage1\n"
      "    after_walk: [PotentialConstTakenEffectPass]\n");
  EXPECT_TRUE(p.FindStage("Prepare")->after_walk.empty());
  EXPECT_EQ(Names(p.FindStage("OptimizeStage1")->after_walk), Strings{"PotentialConstTakenEffectPass"});
}

TEST_F(PipelineExtendsTest, ANewStageIsAddedAtTheEnd) {
  Pipeline p = LoadChild("  - name: BeforeAutofuse\n    passes: [ConstantFoldingPass]\n");
  ASSERT_EQ(p.stages.size(), 3u);
  EXPECT_EQ(p.stages[2].name, "BeforeAutofuse");
  EXPECT_EQ(Names(p.stages[2].passes), Strings{"ConstantFoldingPass"});
}

TEST_F(PipelineExtendsTest, OptionsMergeOverTheParentsAndPluginsAccumulate) {
  Pipeline p = LoadChild("", "level: O2\nplugins: [folding, fusion]\noptions:\n  oo.memoryPolicy: Balanced\n");
  EXPECT_EQ(p.level, OptLevel::kO2);
  EXPECT_EQ(p.options.Find("oo.memoryPolicy")->value, OptionValue(std::string("Balanced")));
  EXPECT_EQ(p.options.Find("oo.memoryPolicy")->origin, Child() + ":5:3");
  EXPECT_EQ(p.options.Find("oo.disableOptimizations")->value, OptionValue(Strings{"IdentityEliminationPass"}));
  ASSERT_EQ(p.plugins.size(), 2u);
  EXPECT_EQ(p.plugins[0].name, "folding");
  EXPECT_EQ(p.plugins[0].pos.file, (dir_.path() / "base.yaml").string());
  EXPECT_EQ(p.plugins[1].name, "fusion");
}

TEST_F(PipelineExtendsTest, ChainsOfFilesApplyInOrder) {
  dir_.Write("sub/mid.yaml",
             "extends: ../base.yaml\nlevel: O2\nstages:\n  - name: Prepare\n"
             "    remove: InferShapePass\n");
  Pipeline p = LoadPipelineFile(
      dir_.Write("sub/top.yaml", "extends: mid.yaml\nstages:\n  - name: Prepare\n    append: [InferShapePass]\n"),
      registry_, catalog_);
  EXPECT_EQ(p.level, OptLevel::kO2);
  EXPECT_EQ(Prepare(p), (Strings{"ConstantFoldingPass", "IdentityEliminationPass", "InferShapePass"}));
  EXPECT_EQ(p.files.size(), 3u);
}

TEST_F(PipelineExtendsTest, ACycleIsAnErrorAtTheExtendsThatClosesIt) {
  auto a = dir_.Write("a.yaml", "extends: b.yaml\n");
  dir_.Write("b.yaml", "level: O1\nextends: a.yaml\n");
  std::string a_name = a.string(), b_name = (dir_.path() / "b.yaml").string();
  EXPECT_EQ(ConfigErrorOf([&] { LoadPipelineFile(a, registry_, catalog_); }),
            b_name + ":2:10: extends cycle: " + a_name + " -> " + b_name + " -> " + a_name);
}

TEST_F(PipelineExtendsTest, AFileExtendingItselfIsACycle) {
  auto self = dir_.Write("self.yaml", "level: O1\nextends: ./self.yaml\n");
  EXPECT_EQ(ConfigErrorOf([&] { LoadPipelineFile(self, registry_, catalog_); }),
            self.string() + ":2:10: extends cycle: " + self.string() + " -> " + self.string());
}

TEST_F(PipelineExtendsTest, AMissingParentIsAnErrorAtTheExtendsValue) {
  EXPECT_EQ(ConfigErrorOf([&] {
              LoadPipelineFile(dir_.Write("child.yaml", "level: O1\nextends:   missing.yaml\n"), registry_, catalog_);
            }),
            Child() + ":2:12: extends: 'missing.yaml' is neither a level (O0, O1, O2, O3) nor an existing pipeline "
                      "file ('" + (dir_.path() / "missing.yaml").string() + "' does not exist)");
}

}  // namespace
}  // namespace kiln
