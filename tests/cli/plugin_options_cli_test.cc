// The folding plugin owns its options (oo.constantFolding, oo.deadCodeElimination,
// oo.commonSubexpressionElimination, oo.memoryPolicy): `kiln options` shows them as the host used to register
// them, owned by "folding"; and a kiln that has no folding plugin says so clearly when they are used. The second
// part runs a hard link of the kiln binary outside the build tree, where no plugin is found by scanning.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <regex>

#include "cli/run_kiln.h"

namespace kiln {
namespace {

using testing::RunBinary;
using testing::RunKiln;
namespace fs = std::filesystem;

const std::string kSample = std::string(KILN_SOURCE_DIR) + "/examples/sample/model.onnx";
const std::string kFoldingPlugin = std::string(KILN_BUILD_PLUGIN_DIR) + "/libkiln_folding.so";

nlohmann::json OptionEntry(const nlohmann::json& listing, const std::string& name) {
  for (const auto& o : listing["options"])
    if (o["name"] == name) return o;
  return nullptr;
}

nlohmann::json BoolOption(const std::string& name, const std::string& help) {
  return {{"name", name},
          {"type", "bool"},
          {"levels", {"O1", "O2", "O3"}},
          {"defaults", {{"O1", true}, {"O2", true}, {"O3", true}}},
          {"allowed", {"true", "false"}},
          {"allowed_text", "true, false"},
          {"settable", {"cli", "session", "graph", "pipeline"}},
          {"help", help},
          {"owner", "folding"}};
}

TEST(PluginOptionsCli, TheFoldingPluginsOptionsAreListedAsTheHostListedThem) {
  auto r = RunKiln("options --json");
  ASSERT_EQ(r.rc, 0) << r.output;
  auto listing = nlohmann::json::parse(r.output);
  EXPECT_EQ(OptionEntry(listing, "oo.constantFolding"),
            BoolOption("oo.constantFolding",
                       "Constant folding and its family (dimension computation, empty-constant replacement, "
                       "potential constants). With it off, Shape/Size/Rank nodes stay in the graph."));
  EXPECT_EQ(OptionEntry(listing, "oo.deadCodeElimination"),
            BoolOption("oo.deadCodeElimination", "Remove nodes whose outputs reach no graph output."));
  EXPECT_EQ(OptionEntry(listing, "oo.commonSubexpressionElimination"),
            BoolOption("oo.commonSubexpressionElimination", "Merge identical nodes and identical constants."));
  nlohmann::json policy = {{"name", "oo.memoryPolicy"},
                           {"type", "enum"},
                           {"levels", {"O1", "O2", "O3"}},
                           {"defaults", {{"O1", "Balanced"}, {"O2", "Balanced"}, {"O3", "Balanced"}}},
                           {"allowed", {"Balanced", "MemoryPriority"}},
                           {"allowed_text", "Balanced, MemoryPriority"},
                           {"settable", {"cli", "session", "graph", "pipeline"}},
                           {"help",
                            "MemoryPriority: do not fold a node when an input constant has more than 8 elements and "
                            "more than one consumer (the fold would duplicate it)."},
                           {"owner", "folding"}};
  EXPECT_EQ(OptionEntry(listing, "oo.memoryPolicy"), policy);
  for (const char* host : {"oo.level", "oo.optimizationSwitch", "oo.disableOptimizations"})
    EXPECT_EQ(OptionEntry(listing, host)["owner"], "host") << host;

  auto table = RunKiln("options");
  ASSERT_EQ(table.rc, 0) << table.output;
  EXPECT_NE(table.output.find("oo.memoryPolicy                    enum    O1+  default O1..O3: Balanced  "
                              "[cli session graph pipeline]  (folding)\n"
                              "    allowed: Balanced, MemoryPriority\n"),
            std::string::npos)
      << table.output;
}

// A kiln binary outside the build tree: it finds no plugin by scanning (and the source tree's configs).
class WithoutPluginsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::TempDir("without_plugins");
    fs::create_directories(dir_ / "bin");
    kiln_ = (dir_ / "bin" / "kiln").string();
    std::error_code ec;
    fs::create_hard_link(KILN_BINARY, kiln_, ec);
    if (ec) fs::copy_file(KILN_BINARY, kiln_, fs::copy_options::overwrite_existing);
    ASSERT_TRUE(fs::exists(kiln_));
  }
  void TearDown() override { fs::remove_all(dir_); }

  testing::KilnRun Kiln(const std::string& args) { return RunBinary("env -u KILN_PLUGIN_PATH " + kiln_, args); }

  fs::path dir_;
  std::string kiln_;
};

TEST_F(WithoutPluginsTest, TheFoldingOptionsAreNotListed) {
  auto r = Kiln("options --json");
  ASSERT_EQ(r.rc, 0) << r.output;
  auto listing = nlohmann::json::parse(r.output);
  EXPECT_FALSE(OptionEntry(listing, "oo.level").is_null());
  for (const char* name : {"oo.constantFolding", "oo.deadCodeElimination", "oo.commonSubexpressionElimination",
                           "oo.memoryPolicy"})
    EXPECT_TRUE(OptionEntry(listing, name).is_null()) << name;
}

TEST_F(WithoutPluginsTest, SettingAFoldingOptionSaysNoLoadedPluginRegistersIt) {
  auto r = Kiln("compile " + kSample + " -o " + (dir_ / "o.onnx").string() +
                " --oo.level=O0 --oo.memoryPolicy=MemoryPriority");
  EXPECT_EQ(r.rc, 3) << r.output;
  EXPECT_NE(r.output.find("kiln: error: unknown option 'oo.memoryPolicy' (neither the host nor a loaded plugin "
                          "registers it; loaded plugins: none)"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "o.onnx"));
  // With the plugin given, the same command works.
  r = Kiln("compile " + kSample + " -o " + (dir_ / "o.onnx").string() +
           " --oo.level=O0 --oo.memoryPolicy=MemoryPriority --plugin " + kFoldingPlugin);
  EXPECT_EQ(r.rc, 0) << r.output;
}

TEST_F(WithoutPluginsTest, APipelineSettingAFoldingOptionWithoutListingThePluginNamesTheProblem) {
  auto file = dir_ / "mine.yaml";
  std::ofstream(file) << "level: O0\noptions:\n  oo.memoryPolicy: MemoryPriority\n";
  auto r = Kiln("compile --print-pipeline --pipeline " + file.string());
  EXPECT_EQ(r.rc, 3) << r.output;
  EXPECT_NE(r.output.find(file.string() + ":3:3: unknown option 'oo.memoryPolicy' (neither the host nor a loaded "
                          "plugin registers it; loaded plugins: none)"),
            std::string::npos)
      << r.output;
}

TEST_F(WithoutPluginsTest, TheShippedO1PipelineNamesTheMissingPlugin) {
  auto r = Kiln("compile " + kSample + " -o " + (dir_ / "o.onnx").string() + " --oo.level=O1");
  EXPECT_EQ(r.rc, 4) << r.output;
  EXPECT_NE(r.output.find("plugin 'folding' was not found"), std::string::npos) << r.output;
  // An option of the missing plugin is reported as that plugin's failure, the better message.
  r = Kiln("compile " + kSample + " -o " + (dir_ / "o.onnx").string() + " --oo.level=O1 --oo.constantFolding=false");
  EXPECT_EQ(r.rc, 4) << r.output;
  EXPECT_NE(r.output.find("plugin 'folding' was not found"), std::string::npos) << r.output;
}

TEST_F(WithoutPluginsTest, AUserPipelineExtendingALevelNeedsThatLevelsPlugins) {
  // The plugins of `extends: O1` are read ahead like those of a path: the missing folding plugin is the error,
  // at the shipped O1.yaml's `plugins:` entry, rather than the unknown passes that would follow.
  auto file = dir_ / "mine.yaml";
  std::ofstream(file) << "extends: O1\n";
  auto r = Kiln("compile --print-pipeline --pipeline " + file.string());
  EXPECT_EQ(r.rc, 4) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex("O1\\.yaml:[0-9]+:[0-9]+: plugin 'folding' was not found")))
      << r.output;
  r = Kiln("compile --print-pipeline --pipeline " + file.string() + " --plugin " + kFoldingPlugin);
  EXPECT_EQ(r.rc, 0) << r.output;
}

}  // namespace
}  // namespace kiln
