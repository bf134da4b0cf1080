// The subcommands' happy paths: info, options, passes, compile at O0 (lossless, report written, dumps).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/run_kiln.h"

namespace kiln {
namespace {

using testing::RunKiln;
namespace fs = std::filesystem;

const std::string kSample = std::string(KILN_SOURCE_DIR) + "/examples/sample/model.onnx";

TEST(CliCommands, InfoJson) {
  auto r = RunKiln("info " + kSample + " --json");
  ASSERT_EQ(r.rc, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["ir_version"], 8);
  EXPECT_EQ(j["opsets"]["ai.onnx"], 13);
  EXPECT_EQ(j["nodes"], 15);
  EXPECT_EQ(j["op_types"]["Constant"], 3);
  EXPECT_EQ(j["initializers"], 8);
  EXPECT_EQ(j["inputs"][0]["type"], "float[batch,3,32,32]");
}

TEST(CliCommands, OptionsJsonListsCoreOptionsWithLevelDefaults) {
  auto r = RunKiln("options --json");
  ASSERT_EQ(r.rc, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  std::string all = j.dump();
  for (const char* name : {"oo.level", "oo.constantFolding", "oo.deadCodeElimination",
                           "oo.commonSubexpressionElimination", "oo.memoryPolicy", "oo.optimizationSwitch",
                           "oo.disableOptimizations"})
    EXPECT_NE(all.find(name), std::string::npos) << name;
}

TEST(CliCommands, CompileAtO0WritesReportAndDumps) {
  auto dir = testing::TempDir("compile_o0");
  auto out = dir / "out.onnx";
  auto r = RunKiln("compile " + kSample + " -o " + out.string() + " --oo.level=O0 --report " +
                   (dir / "r.json").string() + " --verify-each --log-level=error");
  ASSERT_EQ(r.rc, 0) << r.output;
  EXPECT_TRUE(fs::exists(out));
  std::ifstream in(dir / "r.json");
  auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["level"], "O0");
  EXPECT_EQ(j["nodes_before"], 15);
  EXPECT_EQ(j["nodes_after"], 15);
  bool found = false;
  for (const auto& o : j["options"])
    if (o["name"] == "oo.level") found = o["source"] == "session";
  EXPECT_TRUE(found) << j["options"].dump();
  // The O0 output is the input again.
  auto a = RunKiln("info " + kSample + " --json"), b = RunKiln("info " + out.string() + " --json");
  auto ja = nlohmann::json::parse(a.output), jb = nlohmann::json::parse(b.output);
  ja.erase("model"), jb.erase("model");
  EXPECT_EQ(ja, jb);
  fs::remove_all(dir);
}

TEST(CliCommands, ExternalDataThresholdWritesAndReadsBack) {
  auto dir = testing::TempDir("external");
  auto out = dir / "ext.onnx";
  auto r = RunKiln("compile " + kSample + " -o " + out.string() + " --oo.level=O0 --external-data-threshold 1024");
  ASSERT_EQ(r.rc, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir / "ext.onnx.data"));
  EXPECT_LT(fs::file_size(out), 8192u);  // the 80 KB of weights went to the data file
  auto back = dir / "back.onnx";
  r = RunKiln("compile " + out.string() + " -o " + back.string() + " --oo.level=O0");
  ASSERT_EQ(r.rc, 0) << r.output;  // external tensors stay external on the way through
  EXPECT_TRUE(fs::exists(dir / "back.onnx.data"));
  auto a = nlohmann::json::parse(RunKiln("info " + kSample + " --json").output);
  auto b = nlohmann::json::parse(RunKiln("info " + back.string() + " --json").output);
  EXPECT_EQ(a["initializer_bytes"], b["initializer_bytes"]);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kiln
