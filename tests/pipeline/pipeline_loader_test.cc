// Tests of loading one pipeline file: every top-level key, passes with arguments and after_walk, positions of
// items, option defaults with their origins, and the unknown-pass policies.
#include "pipeline/pipeline_loader.h"

#include <gtest/gtest.h>

#include "pipeline_test_support.h"

namespace kiln {
namespace {

using test_support::ConfigErrorOf;
using test_support::Names;

class PipelineLoaderTest : public ::testing::Test {
 protected:
  PipelineLoaderTest() { test_support::RegisterOptionsForTests(registry_); }

  Pipeline Load(const std::string& text, const PipelineLoadOptions& options = {}) {
    return LoadPipelineFile(dir_.Write("p.yaml", text), registry_, catalog_, options);
  }
  std::string File() const { return (dir_.path() / "p.yaml").string(); }

  OptionRegistry registry_;
  test_support::FakePassCatalog catalog_;
  test_support::TempDir dir_;
};

TEST_F(PipelineLoaderTest, ReadsEveryTopLevelKey) {
  Pipeline p = Load(
      "level: O1\n"
      "description: folding only\n"
      "plugins: [folding, ./libextra.so]\n"
      "options:\n"
      "  oo.memoryPolicy: MemoryPriority\n"
      "  oo.disableOptimizations: [IdentityEliminationPass, DeadCodeEliminationPass]\n"
      "stages:\n"
      "  - name: Prepare\n"
      "    passes:\n"
      "      - ReplaceWithEmptyConstPass\n"
      "      - {name: DimensionComputePass, args: {need_fold: false}}\n"
      "    after_walk: [PotentialConstTakenEffectPass]\n"
      "  - name: OptimizeStage1\n");
  EXPECT_EQ(p.level, OptLevel::kO1);
  EXPECT_EQ(p.level_pos.ToString(), File() + ":1:8");
  EXPECT_EQ(p.description, "folding only");
  EXPECT_EQ(p.files, std::vector<std::string>{File()});
  ASSERT_EQ(p.plugins.size(), 2u);
  EXPECT_EQ(p.plugins[0].name, "folding");
  EXPECT_EQ(p.plugins[1].name, "./libextra.so");
  EXPECT_EQ(p.plugins[1].pos.ToString(), File() + ":3:20");

  const OptionSetting* policy = p.options.Find("oo.memoryPolicy");
  ASSERT_NE(policy, nullptr);
  EXPECT_EQ(policy->value, OptionValue(std::string("MemoryPriority")));
  EXPECT_EQ(policy->origin, File() + ":5:3");
  const OptionSetting* disabled = p.options.Find("oo.disableOptimizations");
  ASSERT_NE(disabled, nullptr);
  EXPECT_EQ(disabled->value,
            OptionValue(std::vector<std::string>{"IdentityEliminationPass", "DeadCodeEliminationPass"}));

  ASSERT_EQ(p.stages.size(), 2u);
  const PipelineStage& prepare = p.stages[0];
  EXPECT_EQ(prepare.name, "Prepare");
  EXPECT_EQ(prepare.pos.ToString(), File() + ":8:11");
  EXPECT_EQ(Names(prepare.passes), (std::vector<std::string>{"ReplaceWithEmptyConstPass", "DimensionComputePass"}));
  EXPECT_EQ(prepare.passes[0].pos.ToString(), File() + ":10:9");
  EXPECT_EQ(prepare.passes[1].pos.ToString(), File() + ":11:16");
  ASSERT_NE(prepare.passes[1].FindArg("need_fold"), nullptr);
  EXPECT_EQ(prepare.passes[1].FindArg("need_fold")->value, "false");
  EXPECT_EQ(prepare.passes[1].FindArg("need_fold")->pos.ToString(), File() + ":11:45");
  EXPECT_EQ(prepare.passes[1].FindArg("other"), nullptr);
  EXPECT_EQ(Names(prepare.after_walk), std::vector<std::string>{"PotentialConstTakenEffectPass"});
  EXPECT_TRUE(p.stages[1].passes.empty());
  EXPECT_TRUE(p.stages[1].after_walk.empty());
  EXPECT_NE(p.FindStage("OptimizeStage1"), nullptr);
  EXPECT_EQ(p.FindStage("BeforeAutofuse"), nullptr);
  EXPECT_TRUE(p.warnings.empty());
}

TEST_F(PipelineLoaderTest, BlockStylePassWithArgs) {
  Pipeline p = Load(
      "level: O2\n"
      "stages:\n"
      "  - name: OptimizeStage1\n"
      "    passes:\n"
      "      - name: ConstantFoldingPass\n"
      "        args:\n"
      "          need_fold: true\n");
  ASSERT_EQ(p.stages.at(0).passes.size(), 1u);
  const PassRef& pass = p.stages[0].passes[0];
  EXPECT_EQ(pass.name, "ConstantFoldingPass");
  EXPECT_EQ(pass.pos.ToString(), File() + ":5:15");
  ASSERT_EQ(pass.args.size(), 1u);
  EXPECT_EQ(pass.args[0].key, "need_fold");
  EXPECT_EQ(pass.args[0].value, "true");
}

TEST_F(PipelineLoaderTest, PluginsAreListedOnce) {
  Pipeline p = Load("level: O1\nplugins: [folding, fusion, folding]\n");
  ASSERT_EQ(p.plugins.size(), 2u);
  EXPECT_EQ(p.plugins[1].name, "fusion");
}

TEST_F(PipelineLoaderTest, UnknownPassesCanBeKeptWithAWarningOrSilently) {
  const std::string text = "level: O1\nstages:\n  - name: Prepare\n    passes: [FuturePass]\n";
  PipelineLoadOptions warn;
  warn.unknown_passes = UnknownPassPolicy::kWarn;
  Pipeline warned = Load(text, warn);
  EXPECT_EQ(Names(warned.stages.at(0).passes), std::vector<std::string>{"FuturePass"});
  ASSERT_EQ(warned.warnings.size(), 1u);
  EXPECT_EQ(warned.warnings[0].rfind(File() + ":4:14: unknown pass 'FuturePass'", 0), 0u) << warned.warnings[0];

  PipelineLoadOptions ignore;
  ignore.unknown_passes = UnknownPassPolicy::kIgnore;
  Pipeline ignored = Load(text, ignore);
  EXPECT_EQ(Names(ignored.stages.at(0).passes), std::vector<std::string>{"FuturePass"});
  EXPECT_TRUE(ignored.warnings.empty());

  EXPECT_NE(ConfigErrorOf([&] { Load(text); }).find("unknown pass 'FuturePass'"), std::string::npos);
}

TEST_F(PipelineLoaderTest, AnyStageNameWhenNoneAreKnown) {
  PipelineLoadOptions options;
  options.known_stages.clear();
  Pipeline p = Load("level: O1\nstages:\n  - name: MyLayoutStage\n    passes: [InferShapePass]\n", options);
  EXPECT_EQ(p.stages.at(0).name, "MyLayoutStage");
}

TEST_F(PipelineLoaderTest, WarnsAboutDefaultsForOptionsInactiveAtTheLevel) {
  Pipeline p = Load("level: O0\noptions:\n  oo.constantFolding: false\n");
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_EQ(p.warnings[0], File() +
                               ":3:3: option oo.constantFolding is not active at O0 (active from O1); this "
                               "default has no effect");
}

TEST_F(PipelineLoaderTest, LoadsTextWithExtendsRelativeToABaseDirectory) {
  dir_.Write("base.yaml", "level: O1\nstages:\n  - name: Prepare\n    passes: [ConstantFoldingPass]\n");
  Pipeline p = LoadPipelineText("extends: base.yaml\nstages:\n  - name: Prepare\n    append: [InferShapePass]\n",
                                "<session pipeline>", dir_.path(), registry_, catalog_);
  EXPECT_EQ(p.level, OptLevel::kO1);
  EXPECT_EQ(Names(p.stages.at(0).passes), (std::vector<std::string>{"ConstantFoldingPass", "InferShapePass"}));
  EXPECT_EQ(p.files.front(), "<session pipeline>");
  EXPECT_EQ(
      ConfigErrorOf([&] { LoadPipelineText("level: O1\nstages: {}\n", "<text>", dir_.path(), registry_, catalog_); }),
      "<text>:2:9: expected 'stages' to be a sequence of stages (- name: Prepare ...), got a mapping");
}

}  // namespace
}  // namespace kiln
