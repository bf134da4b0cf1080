// The plugin's thin layer through a real shared-library boundary: libkiln_ascend_target.so is opened with dlopen
// and registered against a copy of the host's table whose register_target keeps what it is given (the host's own
// 1.3 registration is written elsewhere) and whose host_config_dir names the source tree's configs/. Its targets
// are then asked, through their KilnTargetInfo callbacks, about nodes of IR models read through the host's slots,
// and the answers are compared with the plain cost model fed by hand.
//
// Still to write once the host's side of ABI 1.3 lands (register_target keeping the callbacks, host_config_dir,
// target_* forwarding, --target): the same questions through `kiln compile --target ascend910b1` and
// `kiln targets --json`, a pass asking via kiln::sdk::active_target, and cpu_target (sdk/examples) selected with
// --target. Until host_config_dir is filled, the plugin refuses to register in a real host (by design), which
// kiln runs from the build tree log as a skipped plugin.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "ascend_test_util.h"
#include "compile/compiler.h"
#include "ir/model.h"
#include "plugin/host_api.h"
#include "support/function_text.h"
#include "support/golden.h"

namespace kiln::ascend {
namespace {

namespace fs = std::filesystem;
using kiln::testing::ParseModel;
using kiln::testing::ParseModelWithFunctions;
using namespace kiln::ascend::testing;

struct Registered {
  KilnTargetInfo info;
  std::string name, description, details;
  std::vector<std::string> engines, formats;
  bool deferred = false;       // registered with describe (ABI 1.7), described here as the host would on first use
  std::string describe_error;  // its describe's status message
};
std::vector<Registered>* g_registered = nullptr;

KilnStatus* Capture(KilnRegistrar*, const KilnTargetInfo* info) {
  Registered r;
  r.info = *info;
  r.name = info->name;
  if (info->describe) {
    r.deferred = true;
    KilnTargetInfo out;
    std::memset(&out, 0, sizeof out);
    out.struct_size = sizeof out;
    if (KilnStatus* s = info->describe(info->user_data, &out)) {
      r.describe_error = plugin::HostApi().status_message(s);
      plugin::HostApi().status_release(s);
    }
    out.user_data = info->user_data;
    out.destroy_user_data = info->destroy_user_data;
    r.info = out;
    info = &r.info;
  }
  r.description = info->description ? info->description : "";
  r.details = info->details_json ? info->details_json : "";
  for (size_t i = 0; i < info->engine_count; ++i) r.engines.push_back(info->engines[i]);
  for (size_t i = 0; i < info->format_count; ++i) r.formats.push_back(info->formats[i]);
  g_registered->push_back(std::move(r));
  return nullptr;
}
const char* SourceConfigDir() { return KILN_CONFIG_SOURCE_DIR; }

class AscendPlugin : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    library_ = dlopen(KILN_ASCEND_PLUGIN, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(library_, nullptr) << dlerror();
    entry_ = reinterpret_cast<KilnPluginEntryFn>(dlsym(library_, KILN_PLUGIN_ENTRY_SYMBOL));
    ASSERT_NE(entry_, nullptr);
    table_ = plugin::HostApi();
    table_.register_target = &Capture;
    table_.host_config_dir = &SourceConfigDir;
    registered_ = new std::vector<Registered>;
    unsetenv("KILN_ASCEND_TARGETS_DIR");
    ASSERT_EQ(Register(table_, *registered_), "");
  }
  static void TearDownTestSuite() {
    if (registered_)
      for (Registered& r : *registered_)
        if (r.info.destroy_user_data) r.info.destroy_user_data(r.info.user_data);
    delete registered_;
    registered_ = nullptr;
  }
  // Runs the plugin's entry and registration against table; "" on success, else the status message.
  static std::string Register(const KilnHostApi& table, std::vector<Registered>& out) {
    g_registered = &out;
    const KilnPluginDescriptor* d = nullptr;
    KilnStatus* s = entry_(&table, table.abi_version, &d);
    if (!s) {
      KilnRegistrar* registrar = reinterpret_cast<KilnRegistrar*>(&out);  // Capture does not read it
      plugin::CallFrame frame{nullptr};
      s = d->register_plugin(&table, registrar);
    }
    std::string message = s ? plugin::HostApi().status_message(s) : "";
    if (s) plugin::HostApi().status_release(s);
    return message;
  }
  static const Registered& Target(const std::string& name) {
    for (const Registered& r : *registered_)
      if (r.name == name) return r;
    ADD_FAILURE() << "no target " << name;
    return registered_->front();
  }

  KilnNode* NodeOf(Model& m, const std::string& op) {
    for (const auto& n : m.graph().nodes())
      if (n->op_type() == op) return plugin::ToKiln(n.get());
    ADD_FAILURE() << "no " << op;
    return nullptr;
  }
  KilnCostEstimate Estimate(const Registered& t, std::vector<KilnNode*> nodes, std::string* reason = nullptr) {
    KilnCostEstimate e;
    std::memset(&e, 0, sizeof e);
    e.struct_size = sizeof e;
    KilnStatus* s = t.info.estimate(t.info.user_data, nodes.data(), nodes.size(), &e);
    EXPECT_EQ(s, nullptr) << (s ? plugin::HostApi().status_message(s) : "");
    if (reason) *reason = e.reason ? e.reason : "";
    return e;
  }
  std::string Engine(const Registered& t, KilnNode* n) {
    const char* e = nullptr;
    KilnStatus* s = t.info.node_engine(t.info.user_data, n, &e);
    EXPECT_EQ(s, nullptr);
    return e ? e : "(null)";
  }

  static inline void* library_ = nullptr;
  static inline KilnPluginEntryFn entry_ = nullptr;
  static inline KilnHostApi table_{};
  static inline std::vector<Registered>* registered_ = nullptr;
  Compiler compiler;
  plugin::CallFrame frame{&compiler.plugins().services()};
};

TEST_F(AscendPlugin, RegistersOneTargetPerShippedFile) {
  std::vector<std::string> names;
  for (const Registered& r : *registered_) names.push_back(r.name);
  EXPECT_EQ(names, (std::vector<std::string>{"ascend310p3", "ascend910a", "ascend910b1"}));
  for (const Registered& r : *registered_) {
    EXPECT_TRUE(r.deferred) << r.name << ": its file is read when the target is first used";
    EXPECT_EQ(r.describe_error, "") << r.name;
  }
  const Registered& b1 = Target("ascend910b1");
  EXPECT_EQ(b1.info.struct_size, sizeof(KilnTargetInfo));
  EXPECT_EQ(b1.engines, (std::vector<std::string>{"cube", "vector", "aicpu", "host"}));
  EXPECT_NE(std::find(b1.formats.begin(), b1.formats.end(), "FRACTAL_NZ"), b1.formats.end());
  EXPECT_NE(b1.description.find("910B1"), std::string::npos);
  nlohmann::json j = nlohmann::json::parse(b1.details);
  EXPECT_EQ(j["core_kinds"]["aiv"]["count"]["value"], 48);
  EXPECT_EQ(j["core_kinds"]["aiv"]["count"]["tag"], "fact");
  EXPECT_EQ(j["sync"]["launch"]["tag"], "assumed");
  for (auto fn : {b1.info.node_engine == nullptr, b1.info.estimate == nullptr, b1.info.sync_cost == nullptr,
                  b1.info.transfer_cost == nullptr, b1.info.preferred_format == nullptr})
    EXPECT_FALSE(fn);
}

TEST_F(AscendPlugin, EstimatesANodeReadThroughTheHost) {
  auto m = ParseModel(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float16[batch,128,768] a, float16[768,3072] b) => (float16[batch,128,3072] y) {
  y = MatMul (a, b)
})");
  ASSERT_TRUE(m);
  std::string reason;
  KilnCostEstimate e = Estimate(Target("ascend910b1"), {NodeOf(*m, "MatMul")}, &reason);
  // The same node by hand, batch taken as 1.
  CostModel model(Shipped("ascend910b1"));
  TensorInfo a = T("a", kF16, {-1, 128, 768});
  a.symbols[0] = "batch";
  Cost c = model.EstimateNode(Op("MatMul", {a, T("b", kF16, {768, 3072})}, {T("y", kF16, {1, 128, 3072})}));
  EXPECT_EQ(e.flops, 603979776u);
  EXPECT_EQ(e.flops, c.flops);
  EXPECT_EQ(e.offchip_bytes, c.offchip_bytes);
  EXPECT_DOUBLE_EQ(e.seconds, c.seconds);
  EXPECT_DOUBLE_EQ(e.compute_seconds, 603979776 / (24 * 8192 * 1.85e9));
  EXPECT_EQ(e.launches, 1u);
  EXPECT_EQ(e.feasible, 1);
  EXPECT_STREQ(e.engine, "cube");
  EXPECT_NE(reason.find("symbolic dims taken as 1 (assumptions.symbolic_dim): batch"), std::string::npos) << reason;
}

const char* kConvRelu = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float16[1,64,56,56] x, float16[64,64,3,3] w) => (float16[1,64,56,56] y, float16[1,64,56,56] z) {
  c = Conv <pads = [1, 1, 1, 1]> (x, w)
  y = Relu (c)
  z = Sigmoid (c)
})";

TEST_F(AscendPlugin, EstimatesAGroupWithItsOutsideReaders) {
  auto m = ParseModel(kConvRelu);
  ASSERT_TRUE(m);
  // Without shape inference c has no type: the estimate says so.
  std::string untyped;
  Estimate(Target("ascend910b1"), {NodeOf(*m, "Conv"), NodeOf(*m, "Relu")}, &untyped);
  EXPECT_NE(untyped.find("element types unknown, counted as 0 bytes: v"), std::string::npos) << untyped;
  ASSERT_EQ(plugin::HostApi().infer_shapes(plugin::ToKiln(&m->graph()), nullptr), nullptr);
  std::string reason;
  KilnCostEstimate e = Estimate(Target("ascend910b1"), {NodeOf(*m, "Conv"), NodeOf(*m, "Relu")}, &reason);
  EXPECT_EQ(e.barriers, 1u);
  EXPECT_EQ(e.launches, 1u);
  EXPECT_EQ(e.feasible, 1) << reason;
  // External: x, w in; c (Sigmoid reads it outside the group) and y out.
  const uint64_t act = 64 * 56 * 56 * 2;
  EXPECT_EQ(e.offchip_bytes, act + 64 * 64 * 9 * 2 + act + act);
  EXPECT_DOUBLE_EQ(e.barrier_seconds, 1e-6);
  EXPECT_NE(reason.find("runs cube[Conv] -> vector[Relu]"), std::string::npos) << reason;
}

TEST_F(AscendPlugin, ACallStandsForItsBodyFused) {
  auto unfused = ParseModel(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float16[1,64,56,56] x, float16[64,64,3,3] w) => (float16[1,64,56,56] y) {
  c = Conv <pads = [1, 1, 1, 1]> (x, w)
  y = Relu (c)
})");
  auto fused = ParseModelWithFunctions(R"(<ir_version: 8, opset_import: ["" : 17, "kiln.fused" : 1]>
g (float16[1,64,56,56] x, float16[64,64,3,3] w) => (float16[1,64,56,56] y) {
  y = kiln.fused.ConvRelu (x, w)
})",
                                       {{"kiln.fused", R"(ConvRelu (x, w) => (y) {
    c = Conv <pads = [1, 1, 1, 1]> (x, w)
    y = Relu (c)
  })", {}}});
  ASSERT_TRUE(unfused && fused);
  const Registered& t = Target("ascend910b1");
  KilnCostEstimate group = Estimate(t, {NodeOf(*unfused, "Conv"), NodeOf(*unfused, "Relu")});
  std::string reason;
  KilnCostEstimate call = Estimate(t, {NodeOf(*fused, "ConvRelu")}, &reason);
  EXPECT_EQ(call.flops, group.flops);
  EXPECT_EQ(call.offchip_bytes, group.offchip_bytes);
  EXPECT_EQ(call.barriers, 1u);
  EXPECT_EQ(call.launches, 1u);
  EXPECT_DOUBLE_EQ(call.seconds, group.seconds);
  EXPECT_NE(reason.find("runs cube[Conv] -> vector[Relu]"), std::string::npos) << reason;
  EXPECT_EQ(Engine(t, NodeOf(*fused, "ConvRelu")), "cube");
  // The call's formats are its body's: input 0 feeds the Conv's activations, input 1 its filter.
  const char* f = nullptr;
  ASSERT_EQ(t.info.preferred_format(t.info.user_data, NodeOf(*fused, "ConvRelu"), 0, 1, &f), nullptr);
  EXPECT_STREQ(f, "FRACTAL_Z");
  ASSERT_EQ(t.info.preferred_format(t.info.user_data, NodeOf(*fused, "ConvRelu"), 1, 0, &f), nullptr);
  EXPECT_STREQ(f, "");  // the Relu's output: format-agnostic
}

// A call whose constant inputs come before a tensor it computes with (a fused Conv + Add reading its filter and
// bias as initializers, then the residual): the call's typed instance holds the constants as constants, so its
// inputs are the call's other inputs in order, and each is read as the tensor the call gives.
TEST_F(AscendPlugin, ACallWithConstantInputsBeforeATensorReadsEachInputAsItself) {
  auto fused = ParseModelWithFunctions(R"(<ir_version: 8, opset_import: ["" : 17, "kiln.fused" : 1]>
g (float[1,4,8,8] x, float[1,4,8,8] skip) => (float[1,4,8,8] y)
  <float[4,4,1,1] w = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, float[4] b = {0, 0, 0, 0}> {
  y = kiln.fused.ConvAdd (x, w, b, skip)
})",
                                       {{"kiln.fused", R"(ConvAdd (x, w, b, skip) => (y) {
    c = Conv (x, w, b)
    y = Add (c, skip)
  })", {}}});
  ASSERT_TRUE(fused);
  const Registered& t = Target("ascend910b1");
  const char* f = nullptr;
  ASSERT_EQ(t.info.preferred_format(t.info.user_data, NodeOf(*fused, "ConvAdd"), 0, 0, &f), nullptr);
  EXPECT_STREQ(f, "NC1HWC0");
  ASSERT_EQ(t.info.preferred_format(t.info.user_data, NodeOf(*fused, "ConvAdd"), 0, 1, &f), nullptr);
  EXPECT_STREQ(f, "FRACTAL_Z");
  ASSERT_EQ(t.info.preferred_format(t.info.user_data, NodeOf(*fused, "ConvAdd"), 0, 2, &f), nullptr);
  EXPECT_STREQ(f, "ND");
  ASSERT_EQ(t.info.preferred_format(t.info.user_data, NodeOf(*fused, "ConvAdd"), 0, 3, &f), nullptr);
  EXPECT_STREQ(f, "");  // the residual, read by the Add (before the fix: taken for the filter's slot)
  // The residual is read from off-chip memory: its bytes are in the estimate, beside x's and the output's.
  KilnCostEstimate call = Estimate(t, {NodeOf(*fused, "ConvAdd")});
  const uint64_t activation = 1 * 4 * 8 * 8 * 4;
  EXPECT_GE(call.offchip_bytes, 3 * activation);
}

TEST_F(AscendPlugin, EnginesFormatsBarriersAndTransfers) {
  auto m = ParseModel(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float16[1,3,224,224] x, float16[8,3,3,3] w) => (float16[1,8,222,222] y, int64[4] s) {
  y = Conv (x, w)
  s = Shape (y)
})");
  ASSERT_TRUE(m);
  const Registered& t = Target("ascend910a");
  EXPECT_EQ(Engine(t, NodeOf(*m, "Conv")), "cube");
  EXPECT_EQ(Engine(t, NodeOf(*m, "Shape")), "host");
  const char* f = nullptr;
  ASSERT_EQ(t.info.preferred_format(t.info.user_data, NodeOf(*m, "Conv"), 0, 0, &f), nullptr);
  EXPECT_STREQ(f, "NC1HWC0");
  double seconds = -1;
  ASSERT_EQ(t.info.sync_cost(t.info.user_data, "cube", "vector", &seconds), nullptr);
  EXPECT_DOUBLE_EQ(seconds, 0.2e-6);
  ASSERT_EQ(t.info.sync_cost(t.info.user_data, "vector", "vector", &seconds), nullptr);
  EXPECT_EQ(seconds, 0);
  // ND -> NC1HWC0 of x: 301056 B read, 1605632 B written at 910A's assumed 1.024 TB/s, plus a 5 us launch.
  KilnValue* x = plugin::ToKiln(m->graph().LookupValue("x"));
  ASSERT_EQ(t.info.transfer_cost(t.info.user_data, x, "ND", "NC1HWC0", &seconds), nullptr);
  EXPECT_NEAR(seconds, (301056.0 + 1605632.0) / 1.024e12 + 5e-6, 1e-15);
  // Bad questions are one clear error each.
  KilnStatus* s = t.info.transfer_cost(t.info.user_data, x, "ND", "WEIRD", &seconds);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(plugin::HostApi().status_code(s), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(plugin::HostApi().status_message(s), "format 'WEIRD' is not supported by ascend910a");
  plugin::HostApi().status_release(s);
  s = t.info.sync_cost(t.info.user_data, "cube", "npu", &seconds);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(plugin::HostApi().status_code(s), KILN_STATUS_INVALID_ARGUMENT);
  plugin::HostApi().status_release(s);
  KilnCostEstimate e;
  std::memset(&e, 0, sizeof e);
  e.struct_size = sizeof e;
  s = t.info.estimate(t.info.user_data, nullptr, 0, &e);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(plugin::HostApi().status_code(s), KILN_STATUS_INVALID_ARGUMENT);
  plugin::HostApi().status_release(s);
}

TEST_F(AscendPlugin, AGroupWithAShapeNodeIsNotFeasible) {
  auto m = ParseModel(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[4,8] x) => (float[4,8] y, int64[2] s) {
  y = Relu (x)
  s = Shape (y)
})");
  ASSERT_TRUE(m);
  std::string reason;
  KilnCostEstimate e = Estimate(Target("ascend310p3"), {NodeOf(*m, "Relu"), NodeOf(*m, "Shape")}, &reason);
  EXPECT_EQ(e.feasible, 0);
  EXPECT_NE(reason.find("host work is not a device kernel"), std::string::npos) << reason;
}

// The SDK's example target through the same boundary: one engine, no formats, a two-number roofline.
TEST_F(AscendPlugin, TheSdkExampleCpuTargetIsNotAscendShaped) {
  void* lib = dlopen(KILN_CPU_TARGET_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  auto entry = reinterpret_cast<KilnPluginEntryFn>(dlsym(lib, KILN_PLUGIN_ENTRY_SYMBOL));
  ASSERT_NE(entry, nullptr);
  std::vector<Registered> got;
  g_registered = &got;
  const KilnPluginDescriptor* d = nullptr;
  ASSERT_EQ(entry(&table_, table_.abi_version, &d), nullptr);
  ASSERT_EQ(d->register_plugin(&table_, reinterpret_cast<KilnRegistrar*>(&got)), nullptr);
  ASSERT_EQ(got.size(), 1u);
  const Registered& cpu = got[0];
  EXPECT_EQ(cpu.name, "cpu");
  EXPECT_EQ(cpu.engines, std::vector<std::string>{"cpu"});
  auto m = ParseModel(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[64,128] a, float[128,32] b) => (float[64,32] y) {
  y = MatMul (a, b)
})");
  ASSERT_TRUE(m);
  KilnCostEstimate e = Estimate(cpu, {NodeOf(*m, "MatMul")});
  EXPECT_EQ(e.flops, 2u * 64 * 32 * 128);
  EXPECT_EQ(e.offchip_bytes, (64u * 128 + 128 * 32 + 64 * 32) * 4);
  EXPECT_DOUBLE_EQ(e.seconds, 2.0 * 64 * 32 * 128 / 100e9);  // compute-bound at 100 GFLOP/s
  EXPECT_EQ(e.barriers, 0u);
  EXPECT_STREQ(e.reason, "compute-bound");
  EXPECT_EQ(Engine(cpu, NodeOf(*m, "MatMul")), "cpu");
  double s = -1;
  ASSERT_EQ(cpu.info.sync_cost(cpu.info.user_data, "cpu", "cpu", &s), nullptr);
  EXPECT_EQ(s, 0);
  cpu.info.destroy_user_data(cpu.info.user_data);
  g_registered = nullptr;
}

class AscendPluginErrors : public AscendPlugin {
 protected:
  void TearDown() override {
    unsetenv("KILN_ASCEND_TARGETS_DIR");
    std::vector<Registered> again;  // leave the plugin's host pointer on the good table
    g_registered = &again;
    const KilnPluginDescriptor* d = nullptr;
    ASSERT_EQ(entry_(&table_, table_.abi_version, &d), nullptr);
    g_registered = nullptr;
  }
};

TEST_F(AscendPluginErrors, ABadFileFailsItsTargetWithItsPlace) {
  fs::path dir = fs::temp_directory_path() / ("kiln_ascend_bad_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ifstream in(std::string(KILN_ASCEND_TEST_DIR) + "/test_chip.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(text.find("cost: gemm"), 10, "cost: gem ");
  std::ofstream((dir / "broken.yaml").string()) << text;
  setenv("KILN_ASCEND_TARGETS_DIR", dir.c_str(), 1);
  // Registration reads only the name; describing it (the target's first use) fails with the file's place.
  std::vector<Registered> got;
  EXPECT_EQ(Register(table_, got), "");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].name, "testchip");
  const std::string& message = got[0].describe_error;
  EXPECT_NE(message.find((dir / "broken.yaml").string() + ":"), std::string::npos) << message;
  EXPECT_NE(message.find(": op_classes.gemm.cost must be one of"), std::string::npos) << message;
  got[0].info.destroy_user_data(got[0].info.user_data);

  // Two files naming one target: the registration fails, though neither file is read whole.
  std::string good = text;
  good.replace(good.find("cost: gem "), 10, "cost: gemm");
  std::ofstream((dir / "broken.yaml").string()) << good;
  std::ofstream((dir / "copy.yaml").string()) << good;
  got.clear();
  std::string twice = Register(table_, got);
  EXPECT_NE(twice.find("target 'testchip' is already described by " + (dir / "broken.yaml").string()),
            std::string::npos)
      << twice;
  for (Registered& r : got) r.info.destroy_user_data(r.info.user_data);
  fs::remove(dir / "copy.yaml");

  // Without a plain top-level name line, the file is read at once, and a bad one fails the registration.
  std::string quoted = text;
  quoted.replace(quoted.find("\nname:"), 6, "\n\"name\":");
  std::ofstream((dir / "broken.yaml").string()) << quoted;
  std::vector<Registered> none;
  std::string failed = Register(table_, none);
  EXPECT_NE(failed.find(": op_classes.gemm.cost must be one of"), std::string::npos) << failed;
  EXPECT_TRUE(none.empty());

  // An empty folder named by the variable is an error.
  fs::remove(dir / "broken.yaml");
  const std::string empty_message = Register(table_, none);
  EXPECT_NE(empty_message.find("holds no target description"), std::string::npos) << empty_message;
  fs::remove_all(dir);
}

TEST_F(AscendPluginErrors, TheVariableSelectsTheFolder) {
  setenv("KILN_ASCEND_TARGETS_DIR", KILN_ASCEND_TEST_DIR, 1);
  std::vector<Registered> got;
  EXPECT_EQ(Register(table_, got), "");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].name, "testchip");
  EXPECT_EQ(got[0].describe_error, "");
  EXPECT_EQ(got[0].engines.empty(), false);
  got[0].info.destroy_user_data(got[0].info.user_data);
}

TEST_F(AscendPluginErrors, AnOlderHostIsRefusedClearly) {
  KilnHostApi old = table_;
  old.abi_version = KILN_ABI_VERSION_1_2;
  old.struct_size = KILN_STRUCT_SIZE_UNTIL(KilnHostApi, fusion_rule_pack_at);
  std::vector<Registered> none;
  EXPECT_EQ(Register(old, none), "ascend_target needs a Kiln host of ABI 1.3 or newer (host_config_dir and the "
                                 "target slots); this host speaks ABI 1.2");
  KilnHostApi unfilled = table_;
  unfilled.host_config_dir = nullptr;
  EXPECT_NE(Register(unfilled, none).find("but does not implement host_config_dir"), std::string::npos);
  EXPECT_TRUE(none.empty());
}

}  // namespace
}  // namespace kiln::ascend
