// Hardware targets through the `kiln` binary (ABI 1.3), with the test_npu target of test_target_plugin.c: `kiln
// targets` lists it (text and JSON) beside a 1.2 plugin's bare target; an unknown --target (or pipeline `target:`)
// exits 3 naming the known ones; a plugin pass asking the target_* slots gets the target's answers, forwarded; the
// trace of a small model (one fused call) is valid trace-event JSON whose tasks, barriers, memory and totals add
// up; --trace without a target is a usage error that leaves no file; and the option aliases (--fusion-pack,
// --fusion-report, pipeline fusion_packs:) reach the resolved options.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "cli/run_kiln.h"
#include "support/function_text.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;
using testing::RunKiln;

const std::string kSample = std::string(KILN_SOURCE_DIR) + "/examples/sample/model.onnx";  // 15 nodes

std::string Plugin(const std::string& what) {
  return std::string(KILN_TEST_PLUGIN_DIR) + "/libkiln_test_plugin_" + what + ".so";
}
const std::string kTarget = " --plugin " + Plugin("target");

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

nlohmann::json PassStats(const nlohmann::json& report, const std::string& name) {
  for (const auto& stage : report["stages"])
    for (const auto& p : stage["passes"])
      if (p["name"] == name) return p;
  return nullptr;
}

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class TargetCli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::TempDir(::testing::UnitTest::GetInstance()->current_test_info()->name()); }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Pipeline(const std::string& passes, const std::string& extra = "") {
    fs::path p = dir_ / ("pipeline_" + std::to_string(++files_) + ".yaml");
    std::ofstream(p) << "level: O0\n" << extra << "stages:\n  - name: Prepare\n    passes: [" << passes << "]\n";
    return p.string();
  }
  testing::KilnRun Compile(const std::string& model, const std::string& args) {
    return RunKiln("compile " + model + " -o " + (dir_ / "out.onnx").string() + " --report " +
                   (dir_ / "report.json").string() + " " + args);
  }
  nlohmann::json Report() { return nlohmann::json::parse(ReadFile(dir_ / "report.json")); }

  fs::path dir_;
  int files_ = 0;
};

TEST_F(TargetCli, TargetsAreListedAsTextAndJson) {
  const std::string plugins = kTarget + " --plugin " + Plugin("v1_2_target");
  auto r = RunKiln("targets" + plugins);
  ASSERT_EQ(r.rc, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "test_npu  (plugin test_target, ABI 1.13)  " + Plugin("target"))) << r.output;
  EXPECT_TRUE(Contains(r.output, "    A test NPU: cube and vector engines")) << r.output;
  EXPECT_TRUE(Contains(r.output, "    engines: cube, vector, host\n")) << r.output;
  EXPECT_TRUE(Contains(r.output, "    formats: ND, NC1HWC0\n")) << r.output;
  EXPECT_TRUE(Contains(r.output, "old_npu  (plugin v1_2_target, ABI 1.2)")) << r.output;
  EXPECT_TRUE(Contains(r.output, "registered by name only (before ABI 1.3)")) << r.output;

  r = RunKiln("targets --json" + plugins);
  ASSERT_EQ(r.rc, 0) << r.output;
  nlohmann::json j = nlohmann::json::parse(r.output);
  std::map<std::string, nlohmann::json> by_name;
  for (const auto& t : j["targets"]) by_name[t["name"]] = t;
  ASSERT_TRUE(by_name.count("test_npu")) << r.output;
  const nlohmann::json& npu = by_name["test_npu"];
  EXPECT_EQ(npu["plugin"], "test_target");
  EXPECT_EQ(npu["file"], Plugin("target"));
  EXPECT_EQ(npu["plugin_abi"], "1.13");
  EXPECT_EQ(npu["usable"], true);
  EXPECT_EQ(npu["engines"], nlohmann::json::array({"cube", "vector", "host"}));
  EXPECT_EQ(npu["formats"], nlohmann::json::array({"ND", "NC1HWC0"}));
  EXPECT_EQ(npu["details"]["launch_us"], 0.5);
  EXPECT_EQ(npu["details"]["kernel_us"]["cube"], 2);
  ASSERT_TRUE(by_name.count("old_npu")) << r.output;
  EXPECT_EQ(by_name["old_npu"]["usable"], false);
  EXPECT_EQ(by_name["old_npu"]["plugin_abi"], "1.2");
  EXPECT_TRUE(by_name["old_npu"]["engines"].empty());
  EXPECT_TRUE(by_name["old_npu"]["details"].is_null());

  // The 1.2 plugin loads, negotiates 1.2, and its target is in its record.
  r = RunKiln("plugins --json --plugin " + Plugin("v1_2_target"));
  ASSERT_EQ(r.rc, 0) << r.output;
  for (const auto& p : nlohmann::json::parse(r.output)["plugins"])
    if (p["name"] == "v1_2_target") {
      EXPECT_EQ(p["abi_version"], "1.2");
      EXPECT_EQ(p["negotiated_abi"], "1.2");
      EXPECT_EQ(p["targets"], nlohmann::json::array({"old_npu"}));
    }
}

TEST_F(TargetCli, AnUnknownTargetExitsThreeNamingTheKnownOnes) {
  auto r = Compile(kSample, "--target nope" + kTarget);
  EXPECT_EQ(r.rc, 3) << r.output;
  EXPECT_TRUE(Contains(r.output, "kiln: error: unknown target 'nope' (option oo.target, from --target nope)"))
      << r.output;
  EXPECT_TRUE(Contains(r.output, "known targets: test_npu (plugin test_target)")) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "out.onnx"));
  // Also before anything is printed, and from a pipeline's `target:` (with its position).
  r = RunKiln("compile --print-pipeline --oo.target=nope" + kTarget);
  EXPECT_EQ(r.rc, 3) << r.output;
  std::string pipeline = Pipeline("", "target: nope\n");
  r = Compile(kSample, "--pipeline " + pipeline + kTarget);
  EXPECT_EQ(r.rc, 3) << r.output;
  EXPECT_TRUE(Contains(r.output, "from " + pipeline + ":2:1")) << r.output;
  // A target registered by name only cannot be the active one.
  r = Compile(kSample, "--target old_npu --plugin " + Plugin("v1_2_target") + kTarget);
  EXPECT_EQ(r.rc, 3) << r.output;
  EXPECT_TRUE(Contains(r.output, "target 'old_npu'")) << r.output;
  EXPECT_TRUE(Contains(r.output, "registered only its name")) << r.output;
  EXPECT_TRUE(Contains(r.output, "known targets: test_npu")) << r.output;
  // Without --plugin, the targets of the plugins found in the build tree's plugin folder (ascend_target's).
  r = Compile(kSample, "--target nope");
  EXPECT_EQ(r.rc, 3) << r.output;
  EXPECT_TRUE(Contains(r.output, "known targets: ascend310p3 (plugin ascend_target)")) << r.output;
}

TEST_F(TargetCli, APluginPassGetsTheTargetsAnswersForwarded) {
  const std::string probe = " --plugin " + Plugin("target_probe");
  auto r =
      Compile(kSample, "--pipeline " + Pipeline("TargetProbePass") + probe + kTarget + " --target test_npu --strict");
  ASSERT_EQ(r.rc, 0) << r.output;
  nlohmann::json c = PassStats(Report(), "TargetProbePass")["counters"];
  ASSERT_FALSE(c.is_null()) << Report().dump(1);
  EXPECT_EQ(c["active_is_test_npu"], 1);
  EXPECT_EQ(c["engine_count"], 3);
  EXPECT_EQ(c["engine0_is_cube"], 1);
  EXPECT_EQ(c["engine_past_end_is_null"], 1);
  EXPECT_EQ(c["gemm_on_cube"], 1);
  EXPECT_EQ(c["estimate_struct_size_is_ours"], 1);
  EXPECT_EQ(c["gemm_ns"], 2500);  // 2 us on cube + a 0.5 us launch
  EXPECT_EQ(c["gemm_launches"], 1);
  EXPECT_EQ(c["gemm_estimate_engine_is_cube"], 1);
  EXPECT_EQ(c["gemm_input0_nd"], 1);
  EXPECT_EQ(c["format_index_out_of_range"], 1);
  EXPECT_EQ(c["transfer_ns"], 100);
  EXPECT_EQ(c["transfer_bogus_invalid"], 1);
  EXPECT_EQ(c["transfer_message_names_target"], 1);
  EXPECT_EQ(c["sync_cube_vector_ns"], 250);
  EXPECT_EQ(c["sync_vector_vector_ns"], 0);
  EXPECT_EQ(c["sync_unknown_engine_invalid"], 1);
  EXPECT_EQ(c["estimate_of_nothing_invalid"], 1);
  // 15 nodes, 4 on the host (Shape and 3 Constants): 2 on cube (Conv, Gemm), 9 on vector, as one group.
  EXPECT_EQ(c["device_nodes"], 11);
  int64_t barriers = c["group_barriers"];
  EXPECT_GE(barriers, 2);
  EXPECT_EQ(c["group_ns"], 4000 + 9000 + 500 + 250 * barriers);
  EXPECT_EQ(c["group_feasible"], 0);  // over the 8-node buffer
  EXPECT_EQ(c["group_reason_given"], 1);
  // The report has the target's section with its totals, without --trace.
  nlohmann::json target = Report()["target"];
  EXPECT_EQ(target["name"], "test_npu");
  EXPECT_EQ(target["plugin"], "test_target");
  EXPECT_EQ(target["totals"]["tasks"], 11);
  EXPECT_EQ(target["totals"]["host_nodes"], 4);
  // The Conv's input 0, preferred in NC1HWC0 and stored ND, is a conversion left to the device (0.1 us); its
  // filter is a constant (converted offline), and nothing else prefers a format.
  EXPECT_EQ(target["totals"]["format_conversions"], 1);
  EXPECT_NEAR(target["totals"]["format_conversion_seconds"].get<double>(), 1e-7, 1e-12);
  EXPECT_EQ(target["totals"]["format_conversions_unpriced"], 0);
  EXPECT_TRUE(Contains(r.output, "1 format conversions left to the device")) << r.output;
  EXPECT_FALSE(target.contains("trace"));
  EXPECT_TRUE(Contains(r.output, "target test_npu: 11 tasks, 11 launches")) << r.output;

  // Without a target: NULL, no engines, NOT_FOUND; and no target section.
  r = Compile(kSample, "--pipeline " + Pipeline("TargetProbePass") + probe + kTarget + " --strict");
  ASSERT_EQ(r.rc, 0) << r.output;
  c = PassStats(Report(), "TargetProbePass")["counters"];
  EXPECT_EQ(c["no_target"], 1);
  EXPECT_EQ(c["engine_count"], 0);
  EXPECT_EQ(c["estimate_not_found"], 1);
  EXPECT_EQ(c["node_engine_not_found"], 1);
  EXPECT_FALSE(Report().contains("target"));
}

// x -> MatMul (cube) -> Add -> Relu (vector) -> kiln.fused call of MatMul + Add (cube) -> Softmax (vector) -> y,
// and Shape(y) on the host. [batch, 16] floats: 64 bytes with batch counted as 1.
std::string WriteFusedModel(const fs::path& dir) {
  const std::string text = R"(<ir_version: 8, opset_import: ["" : 17, "kiln.fused" : 1]>
g (float[batch,16] x, float[16,16] w1, float[16] b1, float[16,16] w2, float[16] b2) => (float[batch,16] y, int64[2] s) {
  h1 = MatMul (x, w1)
  h2 = Add (h1, b1)
  h3 = Relu (h2)
  f = kiln.fused.Fused_0 (h3, w2, b2)
  y = Softmax (f)
  s = Shape (y)
})";
  testing::FunctionText fused{"kiln.fused", "Fused_0 (a, w, b) => (o) { t = MatMul (a, w)  o = Add (t, b) }", {}};
  onnx::ModelProto proto = testing::ModelProtoWithFunctions(text, {fused});
  for (const char* name : {"h1", "h2", "h3", "f"}) {
    onnx::ValueInfoProto* vi = proto.mutable_graph()->add_value_info();
    vi->set_name(name);
    auto* t = vi->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_param("batch");
    t->mutable_shape()->add_dim()->set_dim_value(16);
  }
  fs::path file = dir / "fused.onnx";
  std::ofstream(file, std::ios::binary) << proto.SerializeAsString();
  return file.string();
}

// The fields the trace-event format requires of each phase this trace uses.
void ExpectWellFormed(const nlohmann::json& e) {
  SCOPED_TRACE(e.dump());
  ASSERT_TRUE(e.is_object());
  ASSERT_TRUE(e.contains("ph") && e["ph"].is_string());
  const std::string ph = e["ph"];
  ASSERT_TRUE(ph == "X" || ph == "i" || ph == "M") << "unexpected phase " << ph;
  EXPECT_TRUE(e["name"].is_string());
  EXPECT_TRUE(e["pid"].is_number_integer());
  EXPECT_TRUE(e["tid"].is_number_integer());
  if (ph == "M") {
    std::string name = e["name"];
    EXPECT_TRUE(name == "process_name" || name == "thread_name" || name == "thread_sort_index") << name;
    EXPECT_TRUE(e["args"].is_object());
    if (name != "thread_sort_index") {
      EXPECT_TRUE(e["args"]["name"].is_string());
    }
    return;
  }
  ASSERT_TRUE(e["ts"].is_number());
  EXPECT_GE(e["ts"].get<double>(), 0);
  if (ph == "X") {
    ASSERT_TRUE(e["dur"].is_number());
    EXPECT_GE(e["dur"].get<double>(), 0);
  }
  if (ph == "i") {
    ASSERT_TRUE(e["s"].is_string());
    std::string s = e["s"];
    EXPECT_TRUE(s == "g" || s == "p" || s == "t") << s;
  }
}

TEST_F(TargetCli, TheTraceOfASmallModelIsValidAndAddsUp) {
  const std::string model = WriteFusedModel(dir_);
  const fs::path trace_file = dir_ / "trace.json";
  auto r = Compile(model, "--oo.level=O0 --target test_npu --trace " + trace_file.string() + kTarget);
  ASSERT_EQ(r.rc, 0) << r.output;
  nlohmann::json trace = nlohmann::json::parse(ReadFile(trace_file));
  ASSERT_TRUE(trace["traceEvents"].is_array());
  EXPECT_EQ(trace["displayTimeUnit"], "ms");
  ASSERT_TRUE(trace["otherData"].is_object());

  std::vector<nlohmann::json> tasks, barriers;
  std::map<int, std::string> threads;
  for (const auto& e : trace["traceEvents"]) {
    ExpectWellFormed(e);
    if (e["ph"] == "X") tasks.push_back(e);
    if (e["ph"] == "i") barriers.push_back(e);
    if (e["ph"] == "M" && e["name"] == "thread_name") threads[e["tid"]] = e["args"]["name"];
    EXPECT_EQ(e["pid"], 0);
  }
  EXPECT_EQ(threads, (std::map<int, std::string>{{1, "cube"}, {2, "vector"}, {3, "host"}}));
  auto end = [](const nlohmann::json& t) { return t["ts"].get<double>() + t["dur"].get<double>(); };
  std::sort(tasks.begin(), tasks.end(), [](const auto& a, const auto& b) { return a["ts"] < b["ts"]; });

  // Five tasks in topological order (Shape is host work), each on its engine's thread.
  std::vector<std::string> engines, names;
  for (const auto& t : tasks) {
    engines.push_back(t["args"]["engine"]);
    names.push_back(t["args"]["op"]);
    EXPECT_EQ(threads[t["tid"]], t["args"]["engine"]);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"MatMul", "Add", "Relu", "kiln.fused.Fused_0", "Softmax"}));
  EXPECT_EQ(engines, (std::vector<std::string>{"cube", "vector", "vector", "cube", "vector"}));

  // One stream: no overlap; a barrier exactly where the engine switches, taking the time between the tasks.
  const double eps = 1e-6;
  size_t b = 0;
  std::sort(barriers.begin(), barriers.end(), [](const auto& x, const auto& y) { return x["ts"] < y["ts"]; });
  for (size_t i = 1; i < tasks.size(); ++i) {
    double gap = tasks[i]["ts"].get<double>() - end(tasks[i - 1]);
    EXPECT_GE(gap, -eps) << "task " << i << " overlaps the one before";
    if (engines[i] != engines[i - 1]) {
      ASSERT_LT(b, barriers.size()) << "no barrier before task " << i;
      const nlohmann::json& bar = barriers[b++];
      EXPECT_NEAR(bar["ts"].get<double>(), end(tasks[i - 1]), eps);
      EXPECT_EQ(bar["args"]["from"], engines[i - 1]);
      EXPECT_EQ(bar["args"]["to"], engines[i]);
      EXPECT_EQ(bar["args"]["before_task"], i);
      EXPECT_NEAR(gap, bar["args"]["seconds"].get<double>() * 1e6, eps);
      EXPECT_NEAR(gap, 0.25, eps);  // the target's sync_cost
    } else {
      EXPECT_NEAR(gap, 0, eps) << "a gap between tasks on one engine";
    }
  }
  EXPECT_EQ(b, barriers.size()) << "barriers where no engine switches";
  EXPECT_EQ(barriers.size(), 3u);

  // Durations from the cost model: 2.5, 1.5, 1.5, the call (2 + 1 + a 0.25 barrier inside + 0.5), 1.5.
  std::vector<double> durations;
  for (const auto& t : tasks) durations.push_back(t["dur"]);
  const std::vector<double> expected = {2.5, 1.5, 1.5, 3.75, 1.5};
  ASSERT_EQ(durations.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(durations[i], expected[i], eps) << "task " << i;

  // The fused call: its body's kernels, its intermediate on chip; every value between tasks in HBM.
  const nlohmann::json& call = tasks[3];
  EXPECT_EQ(call["cat"], "fused");
  EXPECT_EQ(call["args"]["fused"], true);
  EXPECT_EQ(call["args"]["kernels"], nlohmann::json::array({"MatMul", "Add"}));
  EXPECT_EQ(call["args"]["barriers_inside"], 1);
  ASSERT_EQ(call["args"]["on_chip"].size(), 1u);
  EXPECT_EQ(call["args"]["on_chip"][0]["value"], "t");
  EXPECT_EQ(call["args"]["on_chip"][0]["memory"], "on-chip");
  EXPECT_EQ(tasks[0]["args"]["kernels"], nlohmann::json::array({"MatMul"}));

  // Totals: they add up from the events.
  const nlohmann::json& totals = trace["otherData"]["totals"];
  uint64_t launches = 0, hbm = 0;
  for (const auto& t : tasks) {
    launches += t["args"]["launches"].get<uint64_t>();
    for (const auto& v : t["args"]["outputs"]) {
      EXPECT_EQ(v["memory"], "hbm");
      const uint64_t readers = v["reader_tasks"];
      if (readers > 0) hbm += v["bytes"].get<uint64_t>() * (1 + readers);
    }
  }
  EXPECT_EQ(totals["tasks"], tasks.size());
  EXPECT_EQ(totals["barriers"], barriers.size());
  EXPECT_EQ(totals["launches"], launches);
  EXPECT_EQ(launches, 5u);
  EXPECT_EQ(totals["hbm_bytes"], hbm);
  EXPECT_EQ(hbm, 4u * 64 * 2);  // h1, h2, h3 and f: 64 bytes each, written once and read by one task
  EXPECT_EQ(totals["host_nodes"], 1);
  EXPECT_NEAR(totals["estimated_seconds"].get<double>() * 1e6, end(tasks.back()), eps);
  EXPECT_NEAR(end(tasks.back()), 10.75 + 3 * 0.25, eps);
  EXPECT_EQ(tasks[1]["args"]["outputs"][0]["bytes"], 64);  // batch counted as 1 ...
  EXPECT_GT(totals["symbolic_dims_counted_as_1"].get<int>(), 0);
  EXPECT_TRUE(Contains(trace["otherData"]["notes"].dump(), "counted as 1") ||
              Contains(trace["otherData"]["notes"].dump(), "as 1"));  // ... and the trace says so
  EXPECT_EQ(trace["otherData"]["target"], "test_npu");

  // The report: the same totals, and where the trace went.
  nlohmann::json target = Report()["target"];
  EXPECT_EQ(target["totals"], totals);
  EXPECT_EQ(target["trace"], trace_file.string());
  EXPECT_TRUE(Contains(r.output, "target test_npu: 5 tasks, 5 launches, 3 barriers, 512 bytes")) << r.output;
}

// ABI 1.7 through the Ascend plugin: its descriptions are read when a target is used, so a broken file fails that
// target alone (exit 4, its place named, no output), a compile without a target does not read it, and `kiln
// targets` shows the message under it.
TEST_F(TargetCli, ABrokenDescriptionFailsOnlyItsOwnTarget) {
  const fs::path shipped = fs::path(KILN_SOURCE_DIR) / "configs" / "targets";
  const fs::path dir = dir_ / "targets";
  fs::create_directories(dir);
  for (const char* name : {"ascend910a.yaml", "ascend910b1.yaml"}) fs::copy_file(shipped / name, dir / name);
  std::string text = ReadFile(dir / "ascend910a.yaml");
  text.replace(text.find("cost: gemm"), 10, "cost: gem ");
  std::ofstream(dir / "ascend910a.yaml", std::ios::trunc) << text;
  const std::string env = "KILN_ASCEND_TARGETS_DIR=" + dir.string() + " " + KILN_BINARY;
  const std::string out = (dir_ / "out.onnx").string();

  testing::KilnRun broken = testing::RunBinary(env, "compile " + kSample + " -o " + out + " --target ascend910a");
  EXPECT_EQ(broken.rc, 4) << broken.output;
  EXPECT_TRUE(Contains(broken.output, "target 'ascend910a' of plugin ascend_target")) << broken.output;
  EXPECT_TRUE(Contains(broken.output, (dir / "ascend910a.yaml").string() + ":")) << broken.output;
  EXPECT_TRUE(Contains(broken.output, "op_classes.gemm.cost must be one of")) << broken.output;
  EXPECT_FALSE(fs::exists(out));

  for (const std::string& flags : {std::string(" --target ascend910b1"), std::string("")}) {
    testing::KilnRun ok = testing::RunBinary(env, "compile " + kSample + " -o " + out + flags);
    EXPECT_EQ(ok.rc, 0) << flags << ": " << ok.output;
    EXPECT_TRUE(fs::exists(out)) << flags;
    fs::remove(out);
  }

  testing::KilnRun listed = testing::RunBinary(env, "targets --json");
  ASSERT_EQ(listed.rc, 0) << listed.output;
  nlohmann::json j = nlohmann::json::parse(listed.output.substr(listed.output.find('{')));
  std::map<std::string, nlohmann::json> by_name;
  for (const auto& t : j["targets"]) by_name[t["name"]] = t;
  ASSERT_TRUE(by_name.count("ascend910a") && by_name.count("ascend910b1")) << listed.output;
  EXPECT_FALSE(by_name["ascend910a"]["usable"].get<bool>());
  EXPECT_TRUE(Contains(by_name["ascend910a"].value("error", ""), "op_classes.gemm.cost")) << listed.output;
  EXPECT_TRUE(by_name["ascend910b1"]["usable"].get<bool>());
  EXPECT_FALSE(by_name["ascend910b1"]["engines"].empty());
}

TEST_F(TargetCli, TraceWithoutATargetIsAUsageErrorLeavingNoFile) {
  const fs::path trace_file = dir_ / "trace.json";
  auto r = Compile(kSample, "--trace " + trace_file.string() + kTarget);
  EXPECT_EQ(r.rc, 1) << r.output;
  EXPECT_TRUE(Contains(r.output, "pass --target NAME")) << r.output;
  EXPECT_FALSE(fs::exists(trace_file));
  EXPECT_FALSE(fs::exists(dir_ / "out.onnx"));
  for (const auto& entry : fs::directory_iterator(dir_))
    EXPECT_EQ(entry.path().filename().string().rfind("pipeline_", 0), 0u) << "left behind: " << entry.path();
  // An unwritable trace path fails before anything is written.
  r = Compile(kSample, "--target test_npu --trace /no/such/dir/trace.json" + kTarget);
  EXPECT_EQ(r.rc, 1) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "out.onnx"));
}

TEST_F(TargetCli, TheFusionFlagsReachTheirOptions) {
  // Relative paths are made absolute from the working directory; --fusion-pack appends to what --fusion.packs set.
  auto r = testing::RunBinary("cd " + dir_.string() + " && " + KILN_BINARY,
                              "compile --print-pipeline --fusion.packs=/abs/x.yaml --fusion-pack a.yaml "
                              "--fusion-pack /abs/b.yaml --fusion-report rep.txt" + kTarget);
  ASSERT_EQ(r.rc, 0) << r.output;
  const std::string a = (dir_ / "a.yaml").string();
  EXPECT_TRUE(Contains(r.output, "fusion.packs") && Contains(r.output, "= /abs/x.yaml;" + a + ";/abs/b.yaml"))
      << r.output;
  EXPECT_TRUE(Contains(r.output, " --fusion-pack a.yaml --fusion-pack /abs/b.yaml)")) << r.output;
  EXPECT_TRUE(Contains(r.output, "= " + (dir_ / "rep.txt").string())) << r.output;
  EXPECT_TRUE(Contains(r.output, " --fusion-report rep.txt)")) << r.output;

  // A pipeline's fusion_packs: paths from the pipeline file's folder, appended to its options' value; target:.
  std::string pipeline = Pipeline("", "options:\n  fusion.packs: /abs/first.yaml\nfusion_packs: [packs/p.yaml, "
                                      "/abs/q.yaml]\ntarget: test_npu\n");
  r = RunKiln("compile --print-pipeline --pipeline " + pipeline + kTarget);
  ASSERT_EQ(r.rc, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "= /abs/first.yaml;" + (dir_ / "packs" / "p.yaml").string() + ";/abs/q.yaml"))
      << r.output;
  EXPECT_TRUE(Contains(r.output, "oo.target") && Contains(r.output, "= test_npu")) << r.output;
  // The report's options show them too (with a pass that writes the report: asking for one where no pass does
  // is refused before compiling).
  r = Compile(kSample, "--pipeline " + pipeline + kTarget + " --fusion-report rep.txt");
  EXPECT_EQ(r.rc, 3) << r.output;
  EXPECT_TRUE(Contains(r.output, "--fusion-report (fusion.report): no pass of this compile writes it")) << r.output;
  pipeline = (dir_ / "fusing.yaml").string();
  std::ofstream(pipeline) << "level: O2\ntarget: test_npu\nstages:\n  - name: Autofuse\n    passes: [PatternFusionPass]\n";
  r = Compile(kSample, "--pipeline " + pipeline + kTarget + " --fusion-report rep.txt");
  ASSERT_EQ(r.rc, 0) << r.output;
  const nlohmann::json report = Report();
  std::map<std::string, nlohmann::json> options;
  for (const auto& o : report["options"]) options[o["name"]] = o;
  EXPECT_EQ(options["oo.target"]["value"], "test_npu");
  EXPECT_EQ(options["oo.target"]["source"], "pipeline");
  EXPECT_EQ(options["fusion.report"]["value"], fs::absolute("rep.txt").lexically_normal().string());
  EXPECT_EQ(options["fusion.report"]["origin"], "--fusion-report rep.txt");
  EXPECT_EQ(report["target"]["name"], "test_npu");

  // target: and options: oo.target together are ambiguous; a sequence for target: is refused.
  r = RunKiln("compile --print-pipeline --pipeline " + Pipeline("", "options:\n  oo.target: a\ntarget: b\n") + kTarget);
  EXPECT_EQ(r.rc, 3) << r.output;
  EXPECT_TRUE(Contains(r.output, "keep one")) << r.output;
  r = RunKiln("compile --print-pipeline --pipeline " + Pipeline("", "target: [a, b]\n") + kTarget);
  EXPECT_EQ(r.rc, 3) << r.output;
  EXPECT_TRUE(Contains(r.output, "got a sequence")) << r.output;
}

}  // namespace
}  // namespace kiln
