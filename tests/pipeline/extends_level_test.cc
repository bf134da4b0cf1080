// Tests of `extends:` naming a shipped level (`extends: O1`) instead of a path: the shipped file of that level is
// the parent, wherever it is installed; a path still works, also for a file named like a level (./O1); a name that
// is neither a level nor an existing file is an error at the extends value naming both possibilities.
#include <gtest/gtest.h>

#include <algorithm>

#include "pipeline/pipeline_loader.h"
#include "pipeline/shipped_pipelines.h"
#include "pipeline_test_support.h"

namespace kiln {
namespace {

using test_support::ConfigErrorOf;
using test_support::Names;
using Strings = std::vector<std::string>;
namespace fs = std::filesystem;

class ExtendsLevelTest : public ::testing::Test {
 protected:
  ExtendsLevelTest() { test_support::RegisterOptionsForTests(registry_); }

  // Loads "mine.yaml" with `text`, finding shipped levels in the source tree's configs/pipelines.
  Pipeline Load(const std::string& text) {
    PipelineLoadOptions load;
    load.shipped_dir = KILN_PIPELINES_DIR;
    return LoadPipelineFile(dir_.Write("mine.yaml", text), registry_, catalog_, load);
  }
  std::string ErrorLoading(const std::string& text, const fs::path& shipped_dir = KILN_PIPELINES_DIR) {
    PipelineLoadOptions load;
    load.shipped_dir = shipped_dir;
    auto path = dir_.Write("mine.yaml", text);
    return ConfigErrorOf([&] { LoadPipelineFile(path, registry_, catalog_, load); });
  }
  std::string Mine() const { return (dir_.path() / "mine.yaml").string(); }
  static std::string Shipped(const std::string& level) {
    return (fs::path(KILN_PIPELINES_DIR) / (level + ".yaml")).string();
  }

  OptionRegistry registry_;
  test_support::FakePassCatalog catalog_;
  test_support::TempDir dir_;
};

TEST_F(ExtendsLevelTest, ALevelNameExtendsTheShippedFileOfThatLevel) {
  Pipeline p = Load("extends: O1\nstages:\n  - name: OptimizeStage1\n    remove: CommonSubexpressionEliminationPass\n");
  EXPECT_EQ(p.level, OptLevel::kO1);
  EXPECT_EQ(p.files, (Strings{Mine(), Shipped("O1")}));
  ASSERT_EQ(p.plugins.size(), 1u);
  EXPECT_EQ(p.plugins[0].name, "folding");
  EXPECT_EQ(p.plugins[0].pos.file, Shipped("O1"));
  Strings stage1 = Names(p.FindStage("OptimizeStage1")->passes);
  EXPECT_EQ(std::count(stage1.begin(), stage1.end(), "CommonSubexpressionEliminationPass"), 0);
  EXPECT_EQ(stage1.back(), "DeadCodeEliminationPass");
  EXPECT_EQ(p.options.Find("oo.memoryPolicy")->origin, Shipped("O1") + ":14:3");
}

TEST_F(ExtendsLevelTest, AShippedLevelKeepsItsOwnChainAndTheChildMayChangeTheLevel) {
  Pipeline p = Load("extends: O3\nlevel: O2\n");
  EXPECT_EQ(p.level, OptLevel::kO2);
  // O3.yaml extends O2.yaml, which extends O1.yaml: paths relative to the shipped folder.
  ASSERT_EQ(p.files.size(), 4u);
  EXPECT_EQ(p.files[1], Shipped("O3"));
  EXPECT_EQ(fs::path(p.files[3]).filename(), "O1.yaml");
  EXPECT_EQ(Names(p.FindStage("BeforeAutofuse")->passes),
            (Strings{"InferShapePass", "ConstantFoldingPass", "DeadCodeEliminationPass",
                     "CommonSubexpressionEliminationPass"}));
}

TEST_F(ExtendsLevelTest, LevelsAreReadAsTheLevelKeyReadsThem) {
  EXPECT_EQ(Load("extends: o2\n").files[1], Shipped("O2"));
  EXPECT_EQ(Load("extends: O0\n").level, OptLevel::kO0);
}

TEST_F(ExtendsLevelTest, WithoutAShippedFolderGivenTheInstalledOneIsUsed) {
  Pipeline p = LoadPipelineFile(dir_.Write("mine.yaml", "extends: O2\n"), registry_, catalog_);
  EXPECT_EQ(p.files[1], ShippedPipelineFile(OptLevel::kO2).string());
  EXPECT_EQ(p.level, OptLevel::kO2);
}

TEST_F(ExtendsLevelTest, AFileNamedLikeALevelIsWrittenAsAPath) {
  dir_.Write("O1", "level: O3\n");
  Pipeline p = Load("extends: ./O1\n");
  EXPECT_EQ(p.level, OptLevel::kO3);
  EXPECT_EQ(p.files[1], (dir_.path() / "O1").string());
}

TEST_F(ExtendsLevelTest, ANameThatIsNeitherALevelNorAFileNamesBoth) {
  EXPECT_EQ(ErrorLoading("level: O1\nextends: O5\n"),
            Mine() + ":2:10: extends: 'O5' is neither a level (O0, O1, O2, O3) nor an existing pipeline file ('" +
                (dir_.path() / "O5").string() + "' does not exist)");
  dir_.Write("base.yaml", "level: O1\n");
  EXPECT_EQ(ErrorLoading("extends:  base\n"),
            Mine() + ":1:11: extends: 'base' is neither a level (O0, O1, O2, O3) nor an existing pipeline file ('" +
                (dir_.path() / "base").string() + "' does not exist)");
  fs::create_directories(dir_.path() / "sub");
  EXPECT_EQ(ErrorLoading("extends: sub\n"),
            Mine() + ":1:10: extends: 'sub' is neither a level (O0, O1, O2, O3) nor an existing pipeline file ('" +
                (dir_.path() / "sub").string() + "' is not a file)");
}

TEST_F(ExtendsLevelTest, ALevelWhoseShippedFileIsMissingSaysWhereItLooked) {
  fs::path empty = dir_.path() / "no_configs";
  fs::create_directories(empty);
  EXPECT_EQ(ErrorLoading("extends: O1\n", empty),
            Mine() + ":1:10: extends: O1 is the shipped O1 pipeline, but there is no file '" +
                (empty / "O1.yaml").string() +
                "' (is Kiln installed? KILN_CONFIG_DIR names the folder that holds pipelines/)");
}

}  // namespace
}  // namespace kiln
