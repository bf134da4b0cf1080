// The loader in process: every bad plugin is refused with a PluginError naming its file and the problem, the
// older-minor plugins load and negotiate 1.0 and 1.1 (the 1.1 one's pass walks an If through the 1.1 subgraph
// slots), a plugin of a newer minor (1.99, with structs larger than the host's) loads, negotiates the host's minor
// and runs, the hello plugin's registrations reach the registries (and ONNX's schema registry), a file named twice
// loads once, a second plugin of a name already loaded is skipped, and clashing registrations follow first-wins
// and are recorded as shadowed.
#include <gtest/gtest.h>

#include <onnx/defs/schema.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "compile/compiler.h"
#include "plugin/host_api.h"
#include "support/error.h"
#include "support/golden.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

std::string TestPlugin(const std::string& what) {
  std::string name = what == "not_elf" ? "kiln_test_plugin_not_elf.so" : "libkiln_test_plugin_" + what + ".so";
  return std::string(KILN_TEST_PLUGIN_DIR) + "/" + name;
}

// Loads one file in a fresh Compiler and returns the PluginError's message ("" when it loaded).
std::string LoadError(const std::string& file) {
  Compiler compiler;
  try {
    compiler.LoadPlugins({file});
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kPlugin) << e.what();
    return e.what();
  }
  return "";
}

void ExpectRefused(const std::string& what, const std::vector<std::string>& words) {
  std::string file = TestPlugin(what);
  std::string message = LoadError(file);
  ASSERT_FALSE(message.empty()) << what << " loaded";
  EXPECT_NE(message.find(file), std::string::npos) << message;
  for (const std::string& w : words) EXPECT_NE(message.find(w), std::string::npos) << "'" << w << "' in: " << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
}

TEST(PluginLoader, RefusesAFileThatIsNotASharedLibrary) {
  ExpectRefused("not_elf", {"cannot be loaded", "file too short"});
}
TEST(PluginLoader, RefusesALibraryWithoutTheEntry) { ExpectRefused("no_entry", {"does not export kiln_plugin_entry"}); }
TEST(PluginLoader, RefusesAWrongMajorNamingBothVersions) {
  ExpectRefused("wrong_major", {"wrong_major", "built for Kiln ABI 2.0", "this host implements 1.13"});
}
TEST(PluginLoader, RefusesAnEntryThatReturnsAnError) {
  ExpectRefused("entry_error", {"entry refused to load", "refuses to load (on purpose)", "[FAILED]"});
}
TEST(PluginLoader, RefusesARegistrationWithANullCallback) {
  ExpectRefused("null_callback", {"registration failed", "NullCallbackPass", "without run_on_node", "INVALID_ARGUMENT"});
}
TEST(PluginLoader, RefusesAStructSmallerThanTheFirstVersion) {
  ExpectRefused("small_struct", {"SmallStructPass", "KilnPassInfo", "smaller than ABI 1.0's", "ABI_MISMATCH"});
  ExpectRefused("small_descriptor", {"small_descriptor", "descriptor", "smaller than ABI 1.0's"});
}
TEST(PluginLoader, RefusesAMissingFile) { ExpectRefused("no_such_plugin", {"does not exist"}); }

TEST(PluginLoader, ARefusedPluginLeavesNoRegistration) {
  Compiler compiler;
  EXPECT_THROW(compiler.LoadPlugins({TestPlugin("null_callback")}), Error);
  EXPECT_EQ(compiler.passes().Find("NullCallbackPass"), nullptr);
  EXPECT_TRUE(compiler.plugins().plugins().empty());
}

TEST(PluginLoader, LoadsAnOlderMinorAndNegotiatesDown) {
  Compiler compiler;
  compiler.LoadPlugins({TestPlugin("old_minor")});
  const plugin::LoadedPlugin* p = compiler.plugins().Find("old_minor");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->abi_version, KILN_ABI_VERSION_1_0);
  EXPECT_EQ(p->negotiated_version, KILN_ABI_VERSION_1_0);
  EXPECT_EQ(p->description, "");  // a 1.0 descriptor has none: never read
  const PassInfo* pass = compiler.passes().Find("OldMinorPass");
  ASSERT_NE(pass, nullptr);
  EXPECT_EQ(pass->owner, "old_minor");
}

// Loads the plugin `what` in a fresh Compiler, runs its pass `pass` alone (a one-stage O0 pipeline, strict, the
// graph verified after it) on `model_text`, and returns the pass's counters (null when it did not run).
nlohmann::json RunPluginPass(const std::string& what, const std::string& pass, const std::string& model_text) {
  auto model = testing::ParseModel(model_text);
  if (!model) return nullptr;
  Compiler compiler;
  compiler.LoadPlugins({TestPlugin(what)});
  fs::path file = fs::temp_directory_path() / ("kiln_loader_" + what + "_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(file) << "level: O0\nstages:\n  - name: Prepare\n    passes: [" << pass << "]\n";
  CompileRequest request;
  request.pipeline_file = file;
  request.strict = true;
  request.verify_each = true;
  nlohmann::json report = compiler.Run(*model, compiler.Resolve(request), request);
  fs::remove(file);
  for (const auto& stage : report["stages"])
    for (const auto& p : stage["passes"])
      if (p["name"] == pass) {
        EXPECT_EQ(p["failures"], 0) << report.dump(1);
        EXPECT_EQ(p["changes"], 0) << report.dump(1);
        return p["counters"];
      }
  ADD_FAILURE() << pass << " did not run: " << report.dump(1);
  return nullptr;
}

const char* kIfModel = R"(<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[2] x) => (float[2] y) {
  z = If (c) <then_branch = t () => (float[2] ty) { ty = Relu (x) },
             else_branch = e () => (float[2] ey) { ey = Neg (x) }>
  y = Identity (z)
})";

TEST(PluginLoader, LoadsA1_1PluginAndRunsItsSubgraphPass) {
  {
    Compiler compiler;
    compiler.LoadPlugins({TestPlugin("v1_1")});
    const plugin::LoadedPlugin* p = compiler.plugins().Find("v1_1_probe");
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->abi_version, KILN_ABI_VERSION_1_1);
    EXPECT_EQ(p->negotiated_version, KILN_ABI_VERSION_1_1);
    EXPECT_EQ(p->description, "a plugin built against ABI 1.1");  // 1.1's descriptor field, read
    const PassInfo* pass = compiler.passes().Find("V1_1ProbePass");
    ASSERT_NE(pass, nullptr);
    EXPECT_EQ(pass->owner, "v1_1_probe");
  }
  nlohmann::json c = RunPluginPass("v1_1", "V1_1ProbePass", kIfModel);
  ASSERT_TRUE(c.is_object()) << c;
  EXPECT_EQ(c.value("no_subgraph_slots", 0), 0) << "the host's table lacks the 1.1 slots";
  EXPECT_EQ(c["visits"], 4);           // Relu and Neg in the branches, then If, then Identity
  EXPECT_EQ(c["nested_visits"], 2);    // Relu, Neg
  EXPECT_EQ(c["outer_reads"], 2);      // both read x from the main graph
  EXPECT_EQ(c["subgraphs"], 2);        // the If's two branches
  EXPECT_EQ(c["parents_ok"], 2);
  EXPECT_EQ(c["attr_graphs_ok"], 2);
  EXPECT_EQ(c["branch_names_ok"], 2);
  EXPECT_EQ(c["subgraph_nodes"], 2);
  EXPECT_EQ(c["finish_calls"], 3);     // the after-walk hook (a 1.1 field): each branch's walk, then the main one
  EXPECT_EQ(c["finish_on_main"], 1);
  EXPECT_EQ(c["host_minor"], KILN_ABI_VERSION_MINOR);
}

TEST(PluginLoader, LoadsANewerMinorAndReadsOnlyWhatItKnows) {
  {
    Compiler compiler;
    compiler.LoadPlugins({TestPlugin("newer_minor")});
    const plugin::LoadedPlugin* p = compiler.plugins().Find("newer_minor");
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->version, "1.99.0");
    EXPECT_EQ(p->abi_version, KILN_MAKE_ABI_VERSION(1, 99));
    EXPECT_EQ(p->negotiated_version, KILN_ABI_VERSION);  // the host's own minor, the smaller one
    EXPECT_EQ(p->description, "a plugin built for ABI 1.99");
    const PassInfo* pass = compiler.passes().Find("NewerMinorPass");
    ASSERT_NE(pass, nullptr);
    EXPECT_EQ(pass->owner, "newer_minor");
    EXPECT_EQ(pass->help, "counts nodes (a plugin built for ABI 1.99)");
  }
  // The fields after the host's end are garbage pointers: reading or calling any of them would crash this test.
  nlohmann::json c = RunPluginPass("newer_minor", "NewerMinorPass", kIfModel);
  ASSERT_TRUE(c.is_object()) << c;
  EXPECT_EQ(c["visits"], 4);
  EXPECT_EQ(c["finish_calls"], 3);
  EXPECT_EQ(c["limit"], 3);  // its own option, from a KilnOptionInfo larger than the host's
  EXPECT_EQ(c["host_minor"], KILN_ABI_VERSION_MINOR);
  EXPECT_EQ(c["host_lacks_future"], 1);
}

TEST(PluginLoader, HelloRegistersItsPassOptionKernelAndSchema) {
  Compiler compiler;
  compiler.LoadPlugins({TestPlugin("hello")});
  const plugin::LoadedPlugin* p = compiler.plugins().Find("hello");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->version, "1.0.0");
  EXPECT_EQ(p->negotiated_version, KILN_ABI_VERSION);
  EXPECT_EQ(p->origin, "--plugin");
  EXPECT_TRUE(fs::path(p->file).is_absolute());
  const PassInfo* pass = compiler.passes().Find("HelloIdentityPass");
  ASSERT_NE(pass, nullptr);
  EXPECT_EQ(pass->switch_option, "hello.identityElimination");
  const OptionDef* option = compiler.options().Find("hello.identityElimination");
  ASSERT_NE(option, nullptr);
  EXPECT_EQ(option->owner, "hello");
  EXPECT_TRUE(compiler.kernels().Has("hello", "Double", 1));
  const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema("Double", 1, "hello");
  ASSERT_NE(schema, nullptr);
  EXPECT_EQ(schema->domain(), "hello");
}

TEST(PluginLoader, AFileNamedTwiceLoadsOnce) {
  Compiler compiler;
  compiler.LoadPlugins({TestPlugin("hello"), TestPlugin("hello"), fs::path(TestPlugin("hello")).lexically_normal()});
  EXPECT_EQ(compiler.plugins().plugins().size(), 1u);
  EXPECT_TRUE(compiler.passes().shadowed().empty());
}

TEST(PluginLoader, ASecondPluginOfTheSameNameIsSkipped) {
  fs::path dir = fs::temp_directory_path() / ("kiln_loader_dup_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::copy_file(TestPlugin("hello"), dir / "libhello_copy.so", fs::copy_options::overwrite_existing);
  Compiler compiler;
  compiler.LoadPlugins({TestPlugin("hello"), (dir / "libhello_copy.so").string()});
  EXPECT_EQ(compiler.plugins().plugins().size(), 1u);
  ASSERT_EQ(compiler.plugins().skipped().size(), 1u);
  EXPECT_NE(compiler.plugins().skipped()[0].reason.find("already loaded"), std::string::npos);
  fs::remove_all(dir);
}

TEST(PluginLoader, ClashingRegistrationsFirstWinsAndAreReported) {
  Compiler compiler;
  compiler.LoadPlugins({TestPlugin("hello"), TestPlugin("shadow")});
  EXPECT_EQ(compiler.passes().Find("HelloIdentityPass")->owner, "hello");
  EXPECT_EQ(compiler.options().Find("hello.identityElimination")->owner, "hello");
  ASSERT_EQ(compiler.passes().shadowed().size(), 1u);
  EXPECT_EQ(compiler.passes().shadowed()[0].owner, "shadow");
  const plugin::LoadedPlugin* shadow = compiler.plugins().Find("shadow");
  ASSERT_NE(shadow, nullptr);
  std::map<std::string, std::string> shadowed_by;
  for (const auto& r : shadow->registrations) shadowed_by[std::string(plugin::KindName(r.kind)) + " " + r.name] = r.shadowed_by;
  EXPECT_EQ(shadowed_by["pass HelloIdentityPass"], "hello");
  EXPECT_EQ(shadowed_by["option hello.identityElimination"], "hello");
  EXPECT_EQ(shadowed_by["kernel hello.Double"], "hello");
  EXPECT_EQ(shadowed_by["op schema hello.Double"], "hello");
  EXPECT_EQ(shadowed_by["fusion rules shadow_rules"], "");
  EXPECT_EQ(shadowed_by["target shadow_target"], "");
  ASSERT_EQ(shadow->fusion_rules.size(), 1u);
  EXPECT_EQ(shadow->fusion_rules[0].yaml, "rules: []\n");
  ASSERT_EQ(shadow->targets.size(), 1u);
  EXPECT_EQ(shadow->targets[0]->name, "shadow_target");
  EXPECT_TRUE(shadow->targets[0]->bare);  // a 1.3-sized struct with only the name: registered as before 1.3
}

TEST(PluginLoader, ADirectoryLoadsEveryPluginInIt) {
  fs::path dir = fs::temp_directory_path() / ("kiln_loader_dir_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::copy_file(TestPlugin("hello"), dir / "libkiln_hello.so", fs::copy_options::overwrite_existing);
  fs::copy_file(TestPlugin("old_minor"), dir / "libkiln_old_minor.so", fs::copy_options::overwrite_existing);
  fs::copy_file(TestPlugin("not_elf"), dir / "not_a_plugin.txt", fs::copy_options::overwrite_existing);
  Compiler compiler;
  compiler.LoadPlugins({dir.string()});
  EXPECT_NE(compiler.plugins().Find("hello"), nullptr);
  EXPECT_NE(compiler.plugins().Find("old_minor"), nullptr);
  // A pipeline naming `hello` finds it loaded; one naming `old_minor` resolves in the --plugin directory.
  compiler.plugins().LoadPipelinePlugins({{"hello", {}}, {"old_minor", {}}});
  EXPECT_EQ(compiler.plugins().plugins().size(), 2u);
  fs::remove_all(dir);
}

TEST(PluginLoader, AMissingPipelinePluginNamesItsPosition) {
  Compiler compiler;
  try {
    compiler.plugins().LoadPipelinePlugins({{"no_such_plugin", SourcePos{"mine.yaml", 3, 11}}});
    FAIL() << "loaded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kPlugin);
    std::string m = e.what();
    EXPECT_EQ(m.rfind("mine.yaml:3:11: plugin 'no_such_plugin' was not found", 0), 0u) << m;
    EXPECT_NE(m.find("libkiln_no_such_plugin.so"), std::string::npos) << m;
  }
}

TEST(PluginLoader, TheHostTableIsCompleteAndVersioned) {
  const KilnHostApi& api = plugin::HostApi();
  EXPECT_EQ(api.struct_size, sizeof(KilnHostApi));
  EXPECT_EQ(api.abi_version, KILN_ABI_VERSION);
  // Every slot is filled: the table is a run of pointers after the header.
  const size_t first = offsetof(KilnHostApi, status_create);
  const auto* slots = reinterpret_cast<void* const*>(reinterpret_cast<const char*>(&api) + first);
  size_t count = (sizeof(KilnHostApi) - first) / sizeof(void*);
  EXPECT_EQ(count, 190u);  // 1.0 and 1.1: 109, 1.2: 63, 1.3: 10 (target_active .. node_call_instance), 1.4: 1,
                           // 1.5: 1 (graph_set_node_order), 1.6: 1 (target_storage_shape); 1.7: none (a
                           // KilnTargetInfo field); 1.8: 1 (value_constant_bytes); 1.9: none (a KilnPassInfo
                           // field); 1.10: 2 (graph_create_computed_constant, value_constant_read); 1.11: 1
                           // (stored_bytes_read); 1.12: none (a KilnPassInfo field); 1.13: 1 (pass_checkpoint)
  for (size_t i = 0; i < count; ++i) EXPECT_NE(slots[i], nullptr) << "slot " << i;
}

}  // namespace
}  // namespace kiln
