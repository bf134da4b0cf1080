// Plugins through the `kiln` binary: every bad plugin exits 4 with one line naming the file and the problem;
// the older-minor plugin's pass runs in a compile; plugins of 1.0, 1.1 and a newer minor (1.99) are listed with
// the version each was built for and the one negotiated, and their passes run; a pass that fails mid-pass
// (returning an error, or throwing through the C++ wrapper) leaves the output bit-identical to an O0 compile, with
// a warning, and stops the compile with exit 4 under --strict; the hello plugin is listed and its pass runs;
// pipelines name plugins by path and by name; shadowed registrations are reported; a pass reads its own and global
// options.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "cli/run_kiln.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;
using testing::RunKiln;

const std::string kSample = std::string(KILN_SOURCE_DIR) + "/examples/sample/model.onnx";  // 15 nodes, 1 Identity

std::string Plugin(const std::string& what) {
  std::string name = what == "not_elf" ? "kiln_test_plugin_not_elf.so" : "libkiln_test_plugin_" + what + ".so";
  return std::string(KILN_TEST_PLUGIN_DIR) + "/" + name;
}

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The pass entry of a compile report, by name.
nlohmann::json PassStats(const nlohmann::json& report, const std::string& name) {
  for (const auto& stage : report["stages"])
    for (const auto& p : stage["passes"])
      if (p["name"] == name) return p;
  return nullptr;
}

class PluginCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::TempDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A pipeline at `level` whose Prepare stage runs `passes` (YAML flow sequence items).
  std::string Pipeline(const std::string& passes, const std::string& level = "O0", const std::string& extra = "") {
    fs::path p = dir_ / ("pipeline_" + std::to_string(++files_) + ".yaml");
    std::ofstream(p) << "level: " << level << "\n" << extra << "stages:\n  - name: Prepare\n    passes: [" << passes
                     << "]\n";
    return p.string();
  }
  testing::KilnRun Compile(const std::string& args, const std::string& out = "out.onnx") {
    return RunKiln("compile " + kSample + " -o " + (dir_ / out).string() + " --report " + (dir_ / "report.json").string() +
                   " " + args);
  }
  nlohmann::json Report() { return nlohmann::json::parse(ReadFile(dir_ / "report.json")); }

  fs::path dir_;
  int files_ = 0;
};

TEST_F(PluginCli, EveryBadPluginExitsFourNamingTheFileAndTheProblem) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not_elf", "cannot be loaded"},
      {"no_entry", "does not export kiln_plugin_entry"},
      {"wrong_major", "was built for Kiln ABI 2.0; this host implements 1.13"},
      {"entry_error", "its entry refused to load"},
      {"null_callback", "NullCallbackPass' is a node pass without run_on_node"},
      {"small_struct", "KilnPassInfo of pass 'SmallStructPass' is"},
      {"small_descriptor", "its descriptor is"},
  };
  for (const auto& [what, problem] : cases) {
    auto r = RunKiln("plugins --plugin " + Plugin(what));
    EXPECT_EQ(r.rc, 4) << what << ": " << r.output;
    EXPECT_NE(r.output.find(Plugin(what)), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(problem), std::string::npos) << r.output;
    EXPECT_EQ(r.output.rfind("kiln: error: ", 0), 0u) << r.output;
    // The same refusal from `kiln compile`: nothing written.
    r = Compile("--oo.level=O0 --plugin " + Plugin(what));
    EXPECT_EQ(r.rc, 4) << what << ": " << r.output;
    EXPECT_FALSE(fs::exists(dir_ / "out.onnx"));
  }
}

TEST_F(PluginCli, TheOlderMinorPluginsPassRuns) {
  auto r = Compile("--pipeline " + Pipeline("OldMinorPass") + " --plugin " + Plugin("old_minor"));
  ASSERT_EQ(r.rc, 0) << r.output;
  nlohmann::json pass = PassStats(Report(), "OldMinorPass");
  ASSERT_FALSE(pass.is_null()) << Report().dump(1);
  EXPECT_EQ(pass["counters"]["nodes_seen"], 15);
  EXPECT_EQ(pass["failures"], 0);
}

TEST_F(PluginCli, OtherMinorsAreListedWithBothVersionsAndTheirPassesRun) {
  const std::string plugins =
      " --plugin " + Plugin("old_minor") + " --plugin " + Plugin("v1_1") + " --plugin " + Plugin("newer_minor");
  auto r = RunKiln("plugins --json" + plugins);
  ASSERT_EQ(r.rc, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["host_abi"], "1.13");
  std::map<std::string, std::pair<std::string, std::string>> versions;  // name -> (built for, negotiated)
  for (const auto& p : j["plugins"]) versions[p["name"]] = {p["abi_version"], p["negotiated_abi"]};
  using Versions = std::pair<std::string, std::string>;
  EXPECT_EQ(versions["old_minor"], Versions("1.0", "1.0"));
  EXPECT_EQ(versions["v1_1_probe"], Versions("1.1", "1.1"));
  EXPECT_EQ(versions["newer_minor"], Versions("1.99", "1.13"));
  r = RunKiln("plugins" + plugins);
  EXPECT_NE(r.output.find("newer_minor 1.99.0  (ABI 1.99, speaking 1.13)"), std::string::npos) << r.output;

  r = Compile("--pipeline " + Pipeline("OldMinorPass, V1_1ProbePass, NewerMinorPass") + plugins + " --strict");
  ASSERT_EQ(r.rc, 0) << r.output;
  for (const char* pass : {"OldMinorPass", "V1_1ProbePass", "NewerMinorPass"}) {
    nlohmann::json stats = PassStats(Report(), pass);
    ASSERT_FALSE(stats.is_null()) << pass << " did not run: " << Report().dump(1);
    EXPECT_EQ(stats["failures"], 0) << pass;
    EXPECT_EQ(stats["changes"], 0) << pass;
  }
  EXPECT_EQ(PassStats(Report(), "OldMinorPass")["counters"]["nodes_seen"], 15);
  nlohmann::json v1_1 = PassStats(Report(), "V1_1ProbePass")["counters"];
  EXPECT_EQ(v1_1["visits"], 15);
  EXPECT_EQ(v1_1["finish_on_main"], 1);
  EXPECT_EQ(v1_1["host_minor"], 13);
  nlohmann::json newer = PassStats(Report(), "NewerMinorPass")["counters"];
  EXPECT_EQ(newer["visits"], 15);
  EXPECT_EQ(newer["limit"], 3);
  EXPECT_EQ(newer["host_minor"], 13);
  EXPECT_EQ(newer["host_lacks_future"], 1);
}

TEST_F(PluginCli, AFailingPassIsRolledBackBitIdentical) {
  ASSERT_EQ(Compile("--oo.level=O0", "o0.onnx").rc, 0);
  const std::string o0 = ReadFile(dir_ / "o0.onnx");
  ASSERT_FALSE(o0.empty());
  for (const std::string& what : {std::string("error_pass"), std::string("throwing_pass")}) {
    std::string pass = what == "error_pass" ? "ErrorPass" : "ThrowingPass";
    std::string args = "--pipeline " + Pipeline(pass) + " --plugin " + Plugin(what);
    auto r = Compile(args);
    ASSERT_EQ(r.rc, 0) << r.output;
    EXPECT_EQ(ReadFile(dir_ / "out.onnx"), o0) << what << ": the output differs from the input";
    EXPECT_NE(r.output.find("warning: pass " + pass + " failed"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("plugin " + what), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("rolled back"), std::string::npos) << r.output;
    nlohmann::json stats = PassStats(Report(), pass);
    EXPECT_EQ(stats["failures"], 1);
    // The report says why, as the warning did.
    ASSERT_EQ(stats["failure_messages"].size(), 1u) << stats.dump();
    const std::string why = stats["failure_messages"][0];
    EXPECT_EQ(why.rfind("pass " + pass + " failed", 0), 0u) << why;
    EXPECT_NE(r.output.find(why), std::string::npos) << why << "\n" << r.output;
    fs::remove(dir_ / "out.onnx");
    r = Compile(args + " --strict");
    EXPECT_EQ(r.rc, 4) << r.output;
    EXPECT_NE(r.output.find("(stopped: --strict)"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir_ / "out.onnx"));
  }
}

TEST_F(PluginCli, HelloIsListedAndItsPassRuns) {
  auto r = RunKiln("plugins --json --plugin " + Plugin("hello"));
  ASSERT_EQ(r.rc, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  nlohmann::json hello;
  for (const auto& p : j["plugins"])
    if (p["name"] == "hello") hello = p;
  ASSERT_FALSE(hello.is_null()) << r.output;
  EXPECT_EQ(hello["version"], "1.0.0");
  EXPECT_EQ(hello["abi_version"], "1.13");
  EXPECT_EQ(hello["file"], Plugin("hello"));
  std::string registered = hello["registered"].dump();
  for (const char* name : {"HelloIdentityPass", "hello.Double", "hello.identityElimination"})
    EXPECT_NE(registered.find(name), std::string::npos) << name << " in " << registered;

  r = RunKiln("passes --plugin " + Plugin("hello"));
  ASSERT_EQ(r.rc, 0) << r.output;
  EXPECT_NE(r.output.find("HelloIdentityPass  (node pass, hello)  switch: hello.identityElimination\n"
                          "    removes Identity nodes (the SDK's example pass)\n    runs on Identity\n"),
            std::string::npos)
      << r.output;

  std::string pipeline = Pipeline("HelloIdentityPass");
  r = Compile("--pipeline " + pipeline + " --plugin " + Plugin("hello"));
  ASSERT_EQ(r.rc, 0) << r.output;
  EXPECT_EQ(Report()["nodes_after"], 14);
  EXPECT_EQ(PassStats(Report(), "HelloIdentityPass")["counters"]["identities_removed"], 1);
  // Its switch option, registered by the plugin, is a CLI option like any other.
  r = Compile("--pipeline " + pipeline + " --plugin " + Plugin("hello") + " --hello.identityElimination=false");
  ASSERT_EQ(r.rc, 0) << r.output;
  EXPECT_EQ(Report()["nodes_after"], 15);
}

TEST_F(PluginCli, APipelineNamesPluginsByPathAndByName) {
  auto r = Compile("--pipeline " + Pipeline("HelloIdentityPass", "O0", "plugins: [" + Plugin("hello") + "]\n"));
  ASSERT_EQ(r.rc, 0) << r.output;
  EXPECT_EQ(Report()["nodes_after"], 14);

  fs::create_directories(dir_ / "plugins");
  fs::copy_file(Plugin("hello"), dir_ / "plugins" / "libkiln_hello.so");
  ::setenv("KILN_PLUGIN_PATH", ("/no/such/dir:" + (dir_ / "plugins").string()).c_str(), 1);
  r = Compile("--pipeline " + Pipeline("HelloIdentityPass", "O0", "plugins: [hello]\n"));
  EXPECT_EQ(r.rc, 0) << r.output;
  r = RunKiln("plugins --json");
  ::unsetenv("KILN_PLUGIN_PATH");
  ASSERT_EQ(r.rc, 0) << r.output;
  EXPECT_NE(r.output.find("\"origin\": \"KILN_PLUGIN_PATH"), std::string::npos) << r.output;

  r = Compile("--pipeline " + Pipeline("HelloIdentityPass", "O0", "plugins: [no_such_plugin]\n"));
  EXPECT_EQ(r.rc, 4) << r.output;
  EXPECT_NE(r.output.find(":2:11: plugin 'no_such_plugin' was not found"), std::string::npos) << r.output;
  r = Compile("--pipeline " + Pipeline("HelloIdentityPass", "O0", "plugins: [./libnot_here.so]\n"));
  EXPECT_EQ(r.rc, 4) << r.output;
  EXPECT_NE(r.output.find("libnot_here.so does not exist"), std::string::npos) << r.output;
}

TEST_F(PluginCli, ShadowedRegistrationsAreReported) {
  std::string both = " --plugin " + Plugin("hello") + " --plugin " + Plugin("shadow");
  auto r = RunKiln("plugins --json" + both);
  ASSERT_EQ(r.rc, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  std::set<std::string> shadowed;
  for (const auto& s : j["shadowed"]) {
    EXPECT_EQ(s["plugin"], "shadow");
    EXPECT_EQ(s["kept_from"], "hello");
    shadowed.insert(s["kind"].get<std::string>() + " " + s["name"].get<std::string>());
  }
  EXPECT_EQ(shadowed, (std::set<std::string>{"pass HelloIdentityPass", "option hello.identityElimination",
                                             "kernel hello.Double", "op schema hello.Double"}));
  r = RunKiln("plugins" + both);
  EXPECT_NE(r.output.find("HelloIdentityPass  node pass, switch hello.identityElimination  [shadowed by hello's: "
                          "first wins]"),
            std::string::npos)
      << r.output;
  r = RunKiln("passes --json" + both);
  ASSERT_EQ(r.rc, 0) << r.output;
  for (const auto& p : nlohmann::json::parse(r.output))
    if (p["name"] == "HelloIdentityPass") {
      EXPECT_EQ(p["shadows"], nlohmann::json::array({"shadow"}));
      EXPECT_EQ(p["op_types"], nlohmann::json::array({"Identity"}));
    }
  // The pass that runs is hello's (shadow's would fail).
  r = Compile("--pipeline " + Pipeline("HelloIdentityPass") + both + " --strict");
  EXPECT_EQ(r.rc, 0) << r.output;
}

TEST_F(PluginCli, APassReadsItsOwnAndGlobalOptions) {
  std::string plugin = " --plugin " + Plugin("options");
  auto r = Compile("--pipeline " + Pipeline("{name: OptionProbePass, args: {verbose: true}}, FinishProbePass") + plugin);
  ASSERT_EQ(r.rc, 0) << r.output;
  nlohmann::json c = PassStats(Report(), "OptionProbePass")["counters"];
  EXPECT_EQ(c["threshold"], 8);
  EXPECT_EQ(c["verbose"], 1);
  EXPECT_EQ(c["level_is_O0"], 1);
  EXPECT_EQ(c["unknown_not_found"], 1);
  EXPECT_EQ(c["wrong_type_invalid"], 1);
  nlohmann::json f = PassStats(Report(), "FinishProbePass")["counters"];
  EXPECT_EQ(f["visits"], 15);
  EXPECT_GE(f["finish_calls"], 1);
  // The level's own default (O3), then an argument.
  r = Compile("--pipeline " + Pipeline("OptionProbePass", "O3") + plugin);
  ASSERT_EQ(r.rc, 0) << r.output;
  EXPECT_EQ(PassStats(Report(), "OptionProbePass")["counters"]["threshold"], 16);
  r = Compile("--pipeline " + Pipeline("{name: OptionProbePass, args: {threshold: 5}}", "O3") + plugin);
  ASSERT_EQ(r.rc, 0) << r.output;
  EXPECT_EQ(PassStats(Report(), "OptionProbePass")["counters"]["threshold"], 5);
  r = Compile("--pipeline " + Pipeline("{name: OptionProbePass, args: {threshold: many}}") + plugin);
  EXPECT_EQ(r.rc, 3) << r.output;
  EXPECT_NE(r.output.find("OptionProbePass"), std::string::npos) << r.output;
  // The switch option nobody registered was created for it, and turns it off.
  r = RunKiln("options --json" + plugin);
  EXPECT_NE(r.output.find("probe.optionProbe"), std::string::npos) << r.output;
  r = Compile("--pipeline " + Pipeline("OptionProbePass") + plugin + " --probe.optionProbe=false");
  ASSERT_EQ(r.rc, 0) << r.output;
  EXPECT_TRUE(PassStats(Report(), "OptionProbePass").is_null());
}

}  // namespace
}  // namespace kiln
