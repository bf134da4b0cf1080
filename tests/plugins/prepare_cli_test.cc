// ABI 1.9's prepare hook through the `kiln` binary and the test plugin tests/plugins/plugins/prepare_plugin.cc: a
// pass's Prepare runs once per compile, before the model is read (so it runs even when the model cannot be read,
// and what it started is joined when the plugin unloads), however many stages list the pass; a failing Prepare is a
// warning naming the pass, and the pass still runs.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/run_kiln.h"
#include "onnx/onnx_export.h"
#include "support/golden.h"

namespace kiln::testing {
namespace {
namespace fs = std::filesystem;

const std::string kPlugin = std::string(KILN_TEST_PLUGIN_DIR) + "/libkiln_test_plugin_prepare.so";

class PrepareCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    // One Relu; the test plugin's passes only report.
    auto m = ParseModel("<ir_version: 8, opset_import: [\"\" : 17]>\ng (float[2] x) => (float[2] y) { y = Relu(x) }");
    ASSERT_TRUE(m);
    WriteModel(*m, (dir_ / "model.onnx").string());
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Pipeline(const std::string& stages) {
    fs::path p = dir_ / "pipeline.yaml";
    std::ofstream(p) << "level: O0\nstages:\n" << stages;
    return p.string();
  }
  KilnRun Compile(const std::string& model, const std::string& pipeline) {
    return RunBinary("KILN_PREPARE_MARKER=" + (dir_ / "marker").string() + " " + KILN_BINARY,
                     "compile " + model + " -o " + (dir_ / "out.onnx").string() + " --pipeline " + pipeline +
                         " --plugin " + kPlugin + " --report " + (dir_ / "report.json").string());
  }
  // The report entries of pass `name`, in run order.
  std::vector<nlohmann::json> Entries(const std::string& name) {
    std::ifstream in(dir_ / "report.json");
    nlohmann::json report = nlohmann::json::parse(in);
    std::vector<nlohmann::json> out;
    for (const auto& stage : report["stages"])
      for (const auto& p : stage["passes"])
        if (p["name"] == name) out.push_back(p);
    return out;
  }

  fs::path dir_;
};

TEST_F(PrepareCli, APassIsPreparedOnceBeforeItRunsWhateverStagesListIt) {
  auto r = Compile((dir_ / "model.onnx").string(),
                   Pipeline("  - name: Prepare\n    passes: [PrepareProbePass]\n"
                            "  - name: OptimizeStage1\n    passes: [PrepareProbePass]\n"));
  ASSERT_EQ(r.rc, 0) << r.output;
  std::vector<nlohmann::json> entries = Entries("PrepareProbePass");
  ASSERT_EQ(entries.size(), 2u);
  for (const auto& e : entries) {
    EXPECT_EQ(e["counters"]["prepare_calls"], 1) << e.dump();
    EXPECT_EQ(e["counters"]["prepared_before_run"], 1) << e.dump();
  }
  EXPECT_TRUE(fs::exists(dir_ / "marker"));
}

TEST_F(PrepareCli, PreparingComesBeforeTheModelIsReadAndIsJoinedWhenTheCompileFails) {
  std::ofstream(dir_ / "broken.onnx") << "not a model";
  auto r = Compile((dir_ / "broken.onnx").string(), Pipeline("  - name: Prepare\n    passes: [PrepareProbePass]\n"));
  EXPECT_EQ(r.rc, 2) << r.output;
  EXPECT_NE(r.output.find("broken.onnx"), std::string::npos) << r.output;
  // The pass never ran; the thread its Prepare started finished before the process ended (the pass's destructor
  // joined it when the plugin unloaded).
  EXPECT_TRUE(fs::exists(dir_ / "marker")) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "out.onnx"));
}

TEST_F(PrepareCli, APassThatFailsToPrepareIsAWarningAndStillRuns) {
  auto r = Compile((dir_ / "model.onnx").string(), Pipeline("  - name: Prepare\n    passes: [FailingPreparePass]\n"));
  ASSERT_EQ(r.rc, 0) << r.output;
  for (const char* part : {"warning: plugin test_prepare (", "): pass FailingPreparePass: the probe's cache is unreadable",
                           "; the pass runs unprepared"})
    EXPECT_NE(r.output.find(part), std::string::npos) << part << "\n" << r.output;
  std::vector<nlohmann::json> entries = Entries("FailingPreparePass");
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0]["counters"]["ran"], 1) << entries[0].dump();
}

TEST_F(PrepareCli, APassSwitchedOffIsNotPrepared) {
  auto r = RunBinary("KILN_PREPARE_MARKER=" + (dir_ / "marker").string() + " " + KILN_BINARY,
                     "compile " + (dir_ / "model.onnx").string() + " -o " + (dir_ / "out.onnx").string() +
                         " --pipeline " + Pipeline("  - name: Prepare\n    passes: [PrepareProbePass]\n") + " --plugin " +
                         kPlugin + " --oo.disableOptimizations=PrepareProbePass");
  ASSERT_EQ(r.rc, 0) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "marker")) << r.output;
}

}  // namespace
}  // namespace kiln::testing
