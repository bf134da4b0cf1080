// The compile flow `kiln compile` and the embedding API share (compile/compile_flow.h): plugins before options,
// the rule that an unknown option is reported as a failed pipeline plugin's error, the level that picks the
// pipeline (graph over session), and the report Compile completes.
#include "compile/compile_flow.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <vector>

#include "ir/model.h"
#include "onnx/onnx_import.h"

namespace kiln {
namespace {
namespace fs = std::filesystem;

const std::string kSample = std::string(KILN_SOURCE_DIR) + "/examples/sample/model.onnx";

// A pipeline file in a fresh folder.
fs::path WritePipeline(const std::string& name, const std::string& text) {
  fs::path dir = fs::temp_directory_path() / ("kiln_flow_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path file = dir / (name + ".yaml");
  std::ofstream(file) << text;
  return file;
}

// The kiln::Error `fn` throws (code and message); fails the test if it throws none.
template <typename Fn>
std::pair<ExitCode, std::string> ErrorOf(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return {e.code(), e.what()};
  }
  ADD_FAILURE() << "no kiln::Error thrown";
  return {ExitCode::kOk, ""};
}

// A flow whose session sets oo.level to `level`, with the request and resolved pipeline that Compile takes.
struct FlowAt {
  explicit FlowAt(const std::string& level)
      : session(flow.SetOptions(OptionPlace::kSession, {{"oo.level", level, "session"}})),
        request(flow.Request(&session, nullptr)),
        resolved(flow.Resolve(request)) {}
  CompileFlow flow{{}, std::nullopt};
  OptionLayer session;
  CompileRequest request;
  ResolvedPipeline resolved;
};

TEST(CompileFlow, OptionsMayBeThoseOfThePipelinesPlugins) {
  CompileFlow flow({}, std::nullopt);
  OptionLayer session = flow.SetOptions(
      OptionPlace::kCli,
      {{"oo.level", "O1", "--oo.level=O1"}, {"oo.memoryPolicy", "MemoryPriority", "--oo.memoryPolicy"}});
  ASSERT_NE(session.Find("oo.memoryPolicy"), nullptr);
  EXPECT_EQ(session.Find("oo.memoryPolicy")->origin, "--oo.memoryPolicy");
  EXPECT_EQ(session.place(), OptionPlace::kCli);
  EXPECT_NE(flow.compiler().plugins().Find("folding"), nullptr);  // O1.yaml lists it
}

TEST(CompileFlow, ALaterSettingOfANameReplacesAnEarlierOne) {
  CompileFlow flow({}, std::nullopt);
  OptionLayer session = flow.SetOptions(OptionPlace::kCli, {{"oo.level", "O1", "a"}, {"oo.level", "O3", "b"}});
  EXPECT_EQ(session.Find("oo.level")->origin, "b");
  EXPECT_EQ(flow.Resolve(flow.Request(&session, nullptr)).plan.level, OptLevel::kO3);
}

TEST(CompileFlow, AnUnknownOptionIsReportedAsTheFailedPipelinePluginsError) {
  fs::path file = WritePipeline("bad_plugin", "level: O1\nplugins: [no_such_plugin]\nstages: []\n");
  {
    CompileFlow flow({}, file);
    auto [code, message] = ErrorOf([&] { flow.SetOptions(OptionPlace::kSession, {{"oo.zzzzzzzzzzzz", "1", "s"}}); });
    EXPECT_EQ(code, ExitCode::kPlugin) << message;
    EXPECT_EQ(message.rfind(file.string() + ":2:11: plugin 'no_such_plugin' was not found", 0), 0u) << message;
  }
  {
    // A near miss of a known option is the better message.
    CompileFlow flow({}, file);
    auto [code, message] = ErrorOf([&] { flow.SetOptions(OptionPlace::kSession, {{"oo.levle", "O1", "s"}}); });
    EXPECT_EQ(code, ExitCode::kConfig);
    EXPECT_EQ(message, "unknown option 'oo.levle'; did you mean 'oo.level'?");
  }
  {
    // Without an option to explain, the options are set and Resolve reports the plugin.
    CompileFlow flow({}, file);
    OptionLayer session = flow.SetOptions(OptionPlace::kSession, {});
    auto [code, message] = ErrorOf([&] { flow.Resolve(flow.Request(&session, nullptr)); });
    EXPECT_EQ(code, ExitCode::kPlugin) << message;
  }
}

TEST(CompileFlow, AnUnknownOptionWithNoNearMissNamesTheLoadedPlugins) {
  CompileFlow flow({}, std::nullopt);
  auto [code, message] = ErrorOf([&] { flow.SetOptions(OptionPlace::kSession, {{"zz.qqqqqqqqqqqq", "1", "s"}}); });
  EXPECT_EQ(code, ExitCode::kConfig);
  EXPECT_EQ(message.rfind("unknown option 'zz.qqqqqqqqqqqq' (neither the host nor a loaded plugin registers it; "
                          "loaded plugins: ",
                          0),
            0u)
      << message;
  EXPECT_NE(message.find("folding"), std::string::npos) << message;
}

TEST(CompileFlow, TheGraphLayersLevelOverTheSessionsPicksThePipelineWhosePluginsAreLoaded) {
  // Shipped pipelines of our own: O1's lists a plugin that does not exist, O0's none.
  fs::path configs = WritePipeline("unused", "").parent_path() / "configs";
  fs::create_directories(configs / "pipelines");
  std::ofstream(configs / "pipelines" / "O0.yaml") << "level: O0\nstages: []\n";
  std::ofstream(configs / "pipelines" / "O1.yaml") << "level: O1\nplugins: [no_such_plugin]\nstages: []\n";
  ::setenv("KILN_CONFIG_DIR", configs.c_str(), 1);
  CompileFlow flow({}, std::nullopt);
  OptionLayer session = flow.SetOptions(OptionPlace::kSession, {{"oo.level", "O0", "session"}});
  // At the graph's O1, O1's plugin is tried first: the unknown option is reported as that plugin's failure.
  auto [code, message] = ErrorOf([&] {
    flow.SetOptions(OptionPlace::kGraph, {{"oo.level", "O1", "graph"}, {"zz.qqqqqqqqqqqq", "1", "graph"}}, &session);
  });
  EXPECT_EQ(code, ExitCode::kPlugin) << message;
  EXPECT_NE(message.find("plugin 'no_such_plugin' was not found"), std::string::npos) << message;
  // Without a level of its own the graph gets the session's O0, whose pipeline lists no plugin.
  auto [code0, message0] = ErrorOf([&] {
    flow.SetOptions(OptionPlace::kGraph, {{"zz.qqqqqqqqqqqq", "1", "graph"}}, &session);
  });
  EXPECT_EQ(code0, ExitCode::kConfig) << message0;
  ::unsetenv("KILN_CONFIG_DIR");
  fs::remove_all(configs);
}

// The flow reads a pipeline file's plugin list before setting options and again when it resolves; the second read
// is skipped for a file already read, but not for one written since (a session compiles many times).
TEST(CompileFlow, APipelineFileWrittenSinceItsPluginsLoadedIsReadAgain) {
  fs::path file = WritePipeline("rewritten", "level: O1\nplugins: []\nstages: []\n");
  CompileFlow flow({}, file);
  OptionLayer session = flow.SetOptions(OptionPlace::kSession, {{"oo.level", "O1", "session"}});
  CompileRequest request = flow.Request(&session, nullptr);
  EXPECT_NO_THROW(flow.Resolve(request));
  EXPECT_NO_THROW(flow.Resolve(request));
  const fs::file_time_type written = fs::last_write_time(file);
  std::ofstream(file) << "level: O1\nplugins: [no_such_plugin]\nstages: []\n";
  fs::last_write_time(file, written + std::chrono::seconds(1));
  auto [code, message] = ErrorOf([&] { flow.Resolve(request); });
  EXPECT_EQ(code, ExitCode::kPlugin) << message;
  EXPECT_NE(message.find("plugin 'no_such_plugin' was not found"), std::string::npos) << message;
  fs::remove(file);
}

TEST(CompileFlow, CompileRunsWritesAndCompletesTheReport) {
  FlowAt f("O1");
  LoadTimes times;
  times.started = std::chrono::steady_clock::now();
  std::unique_ptr<Model> model = LoadModel(kSample);
  times.loaded = std::chrono::steady_clock::now();
  int writes = 0;
  size_t written_nodes = 0;
  nlohmann::json report = f.flow.Compile(*model, "sample", f.resolved, f.request, times, [&](Model& m) {
    ++writes;
    written_nodes = m.graph().CountNodes(true);
  });
  EXPECT_EQ(writes, 1);
  EXPECT_EQ(report["model"], "sample");
  EXPECT_EQ(report["level"], "O1");
  EXPECT_EQ(report["nodes_before"], 15);
  EXPECT_EQ(report["nodes_after"], written_nodes);  // written after the run
  EXPECT_LT(written_nodes, 15u);
  for (const char* key : {"load", "optimize", "write", "total"})
    EXPECT_GE(report["seconds"][key].get<double>(), 0.0) << key;
  EXPECT_GE(report["seconds"]["total"].get<double>(), report["seconds"]["optimize"].get<double>());
  EXPECT_TRUE(report.contains("summary_after"));
  EXPECT_TRUE(report.contains("stages"));
  EXPECT_TRUE(report.contains("kernels"));
  EXPECT_FALSE(report.contains("output"));  // the CLI adds its output path itself
  for (const auto& stage : report["stages"]) {
    EXPECT_GT(stage["peak_rss_bytes"].get<uint64_t>(), 0u) << stage["name"];
    for (const auto& step : stage["peak_rss_raised_by"]) {
      EXPECT_FALSE(step["passes"].empty());
      EXPECT_GE(step["bytes"].get<uint64_t>(), uint64_t{1} << 20);
    }
  }
}

// The report's memory section: the process's resident memory after each phase and its peak so far, which grows
// by what a phase holds at once (here the write, which touches 64 MiB on top of what the compile left resident).
TEST(CompileFlow, TheReportRecordsEachPhasesResidentMemoryAndPeak) {
  FlowAt f("O1");
  std::unique_ptr<Model> model = LoadModel(kSample);
  auto now = std::chrono::steady_clock::now();
  constexpr size_t kWritten = size_t{64} << 20;
  nlohmann::json report = f.flow.Compile(*model, "sample", f.resolved, f.request, {now, now}, [&](Model&) {
    std::vector<char> block(kWritten);
    for (size_t i = 0; i < block.size(); i += 4096) block[i] = static_cast<char>(i >> 12 | 1);
    asm volatile("" : : "g"(block.data()) : "memory");  // the pages are written, so resident: keep the writes
  });
  const nlohmann::json& rss = report["memory"]["rss_bytes"];
  const nlohmann::json& peak = report["memory"]["peak_rss_bytes"];
  for (const char* phase : {"load", "optimize", "write"}) {
    EXPECT_GT(rss[phase].get<uint64_t>(), 0u) << phase;
    EXPECT_GE(peak[phase].get<uint64_t>(), rss[phase].get<uint64_t>()) << phase;
  }
  EXPECT_LE(peak["load"].get<uint64_t>(), peak["optimize"].get<uint64_t>());
  EXPECT_LE(peak["optimize"].get<uint64_t>(), peak["write"].get<uint64_t>());
  // Some slack for what the allocator hands back from its caches instead of new pages.
  EXPECT_GE(peak["write"].get<uint64_t>(), rss["optimize"].get<uint64_t>() + kWritten - (uint64_t{8} << 20));
}

TEST(CompileFlow, AFailingWriteIsTheCompilesError) {
  FlowAt f("O0");
  std::unique_ptr<Model> model = LoadModel(kSample);
  auto now = std::chrono::steady_clock::now();
  auto [code, message] = ErrorOf([&] {
    f.flow.Compile(*model, "sample", f.resolved, f.request, {now, now}, [](Model&) { throw ModelError("too big"); });
  });
  EXPECT_EQ(code, ExitCode::kInvalidModel);
  EXPECT_EQ(message, "too big");
}

}  // namespace
}  // namespace kiln
