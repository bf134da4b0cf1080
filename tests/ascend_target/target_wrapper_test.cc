// kiln_plugin_target.hpp against a fake host table: the plugin side (AddTarget's KilnTargetInfo, the trampolines:
// exceptions to statuses, interned strings, estimates written only as far as the host's struct reaches, the
// refusal of an older host) and the client side (active_target's helpers over the target_* slots, an older host,
// a slot left NULL).
#include <gtest/gtest.h>
#include <kiln/kiln_plugin_target.hpp>

#include <cstring>
#include <string>

struct KilnStatus {
  KilnStatusCode code;
  std::string message;
};

namespace kiln::sdk {
namespace {

KilnStatus* Create(KilnStatusCode code, const char* message) { return new KilnStatus{code, message}; }
KilnStatusCode Code(const KilnStatus* s) { return s ? s->code : KILN_STATUS_OK; }
const char* Message(const KilnStatus* s) { return s ? s->message.c_str() : ""; }
void Release(KilnStatus* s) { delete s; }
void Log(KilnLogLevel, const char*, const char*) {}
int LogEnabled(KilnLogLevel) { return 0; }

KilnTargetInfo g_info;
std::vector<std::string> g_engines;
KilnStatus* CaptureTarget(KilnRegistrar*, const KilnTargetInfo* info) {
  g_info = *info;
  g_engines.assign(info->engines, info->engines + info->engine_count);
  return nullptr;
}

// Host-side answers of the client slots.
const char* g_active = "npu";
const char* Active() { return g_active; }
size_t EngineCount() { return 2; }
const char* EngineAt(size_t i) { return i == 0 ? "cube" : i == 1 ? "vector" : nullptr; }
KilnStatus* NodeEngine(KilnNode*, const char** out) {
  *out = "cube";
  return nullptr;
}
KilnStatus* HostEstimate(KilnNode* const*, size_t count, KilnCostEstimate* out) {
  if (count == 0) return Create(KILN_STATUS_INVALID_ARGUMENT, "no nodes");
  out->seconds = 3.5;
  out->flops = static_cast<uint64_t>(count) * 100;
  out->barriers = 1;
  out->feasible = 0;
  out->engine = "vector";
  out->reason = "over the UB";
  return nullptr;
}
KilnStatus* HostSync(const char* a, const char* b, double* out) {
  *out = std::string(a) == b ? 0 : 1e-6;
  return nullptr;
}
KilnStatus* HostTransfer(KilnValue*, const char*, const char* to, double* out) {
  if (std::string(to) == "WEIRD") return Create(KILN_STATUS_INVALID_ARGUMENT, "format 'WEIRD' is not supported");
  *out = 2e-6;
  return nullptr;
}
KilnStatus* HostFormat(KilnNode*, int32_t is_output, size_t index, const char** out) {
  *out = is_output ? "NC1HWC0" : index == 1 ? "FRACTAL_Z" : "ND";
  return nullptr;
}
const char* ConfigDir() { return "/opt/kiln/configs"; }

KilnHostApi MakeHost() {
  KilnHostApi h;
  std::memset(&h, 0, sizeof h);
  h.struct_size = sizeof h;
  h.abi_version = KILN_ABI_VERSION;
  h.status_create = Create;
  h.status_code = Code;
  h.status_message = Message;
  h.status_release = Release;
  h.log = Log;
  h.log_enabled = LogEnabled;
  h.register_target = CaptureTarget;
  h.target_active = Active;
  h.target_engine_count = EngineCount;
  h.target_engine_at = EngineAt;
  h.target_node_engine = NodeEngine;
  h.target_estimate = HostEstimate;
  h.target_sync_cost = HostSync;
  h.target_transfer_cost = HostTransfer;
  h.target_preferred_format = HostFormat;
  h.host_config_dir = ConfigDir;
  return h;
}

KilnNode* FakeNode(uintptr_t i) { return reinterpret_cast<KilnNode*>(i * 16); }

int g_destroyed = 0;
class Probe final : public Target {
 public:
  ~Probe() override { ++g_destroyed; }
  std::string Engine(Node node) override {
    if (node.raw() == FakeNode(2)) throw Error("no such node", KILN_STATUS_NOT_FOUND);
    if (node.raw() == FakeNode(3)) throw std::runtime_error("boom");
    return node.raw() == FakeNode(1) ? "cube" : "vector";
  }
  CostEstimate Estimate(std::span<const Node> nodes) override {
    CostEstimate e;
    e.seconds = 1.25;
    e.flops = nodes.size();
    e.barriers = static_cast<uint32_t>(nodes.size() - 1);
    e.feasible = nodes.size() < 3;
    e.engine = "cube";
    e.reason = "group of " + std::to_string(nodes.size());
    return e;
  }
  double SyncCost(std::string_view a, std::string_view b) override { return a == b ? 0 : 4e-7; }
};

class TargetWrapper : public ::testing::Test {
 protected:
  void SetUp() override {
    host_ = MakeHost();
    detail::g_host = &host_;
    g_destroyed = 0;
    std::memset(&g_info, 0, sizeof g_info);
  }
  void TearDown() override { detail::g_host = nullptr; }
  void AddProbe() {
    Registrar reg(reinterpret_cast<KilnRegistrar*>(this));
    AddTarget<Probe>(reg, {.name = "probe", .description = "a probe", .engines = {"cube", "vector"}});
  }
  static std::string Take(KilnStatus* s, KilnStatusCode* code = nullptr) {
    if (!s) return "";
    if (code) *code = s->code;
    std::string m = s->message;
    delete s;
    return m;
  }
  KilnHostApi host_;
};

TEST_F(TargetWrapper, AddTargetFillsTheInfo) {
  AddProbe();
  EXPECT_EQ(g_info.struct_size, sizeof(KilnTargetInfo));
  EXPECT_STREQ(g_info.name, "probe");
  EXPECT_EQ(g_engines, (std::vector<std::string>{"cube", "vector"}));
  EXPECT_EQ(g_info.formats, nullptr);
  EXPECT_EQ(g_info.details_json, nullptr);
  for (bool set : {g_info.node_engine != nullptr, g_info.estimate != nullptr, g_info.sync_cost != nullptr,
                   g_info.transfer_cost != nullptr, g_info.preferred_format != nullptr,
                   g_info.destroy_user_data != nullptr})
    EXPECT_TRUE(set);
  g_info.destroy_user_data(g_info.user_data);
  EXPECT_EQ(g_destroyed, 1);
}

TEST_F(TargetWrapper, TrampolinesTurnExceptionsIntoStatuses) {
  AddProbe();
  const char* engine = nullptr;
  EXPECT_EQ(g_info.node_engine(g_info.user_data, FakeNode(1), &engine), nullptr);
  EXPECT_STREQ(engine, "cube");
  const char* first = engine;
  EXPECT_EQ(g_info.node_engine(g_info.user_data, FakeNode(1), &engine), nullptr);
  EXPECT_EQ(engine, first);  // interned: one pointer, valid for the target's life
  KilnStatusCode code = KILN_STATUS_OK;
  EXPECT_EQ(Take(g_info.node_engine(g_info.user_data, FakeNode(2), &engine), &code), "no such node");
  EXPECT_EQ(code, KILN_STATUS_NOT_FOUND);
  EXPECT_EQ(Take(g_info.node_engine(g_info.user_data, FakeNode(3), &engine), &code), "uncaught exception: boom");
  EXPECT_EQ(code, KILN_STATUS_INTERNAL);
  EXPECT_EQ(Take(g_info.node_engine(g_info.user_data, FakeNode(1), nullptr), &code), "out_engine is NULL");
  EXPECT_EQ(code, KILN_STATUS_INVALID_ARGUMENT);
  double s = -1;
  EXPECT_EQ(g_info.sync_cost(g_info.user_data, "cube", "vector", &s), nullptr);
  EXPECT_EQ(s, 4e-7);
  EXPECT_EQ(g_info.transfer_cost(g_info.user_data, nullptr, "ND", "NZ", &s), nullptr);
  EXPECT_EQ(s, 0);  // the default: conversions are free
  const char* format = "x";
  EXPECT_EQ(g_info.preferred_format(g_info.user_data, FakeNode(1), 0, 0, &format), nullptr);
  EXPECT_STREQ(format, "");  // the default: any
  g_info.destroy_user_data(g_info.user_data);
}

// ABI 1.6: storage_shape is set for a host that speaks 1.6; a target that does not describe its layouts answers
// FAILED_PRECONDITION; one that does copies what fits and tells the rank; the client helper asks again when the
// rank is past its first buffer.
class Blocker final : public Target {
 public:
  std::string Engine(Node) override { return "cube"; }
  CostEstimate Estimate(std::span<const Node>) override { return {}; }
  std::optional<std::vector<int64_t>> StorageShape(Value, std::string_view format) override {
    if (format == "WIDE") return std::vector<int64_t>(10, 3);
    return std::vector<int64_t>{1, 2, 7, 7, 16};
  }
};

KilnStatus* HostStorage(KilnValue*, const char* format, int64_t* dims, size_t capacity, size_t* rank) {
  const size_t n = std::string(format) == "WIDE" ? 10 : 5;
  for (size_t i = 0; i < std::min(capacity, n); ++i) dims[i] = static_cast<int64_t>(i + 1);
  *rank = n;
  return nullptr;
}

TEST_F(TargetWrapper, StorageShapesCrossTheBoundary) {
  AddProbe();
  ASSERT_NE(g_info.storage_shape, nullptr);
  int64_t dims[8] = {};
  size_t rank = 0;
  KilnStatusCode code = KILN_STATUS_OK;
  EXPECT_EQ(Take(g_info.storage_shape(g_info.user_data, nullptr, "NC1HWC0", dims, 8, &rank), &code),
            "this target does not describe storage shapes");
  EXPECT_EQ(code, KILN_STATUS_FAILED_PRECONDITION);
  g_info.destroy_user_data(g_info.user_data);

  Registrar reg(reinterpret_cast<KilnRegistrar*>(this));
  AddTarget<Blocker>(reg, {.name = "blocker", .engines = {"cube"}});
  ASSERT_EQ(g_info.storage_shape(g_info.user_data, nullptr, "NC1HWC0", dims, 3, &rank), nullptr);
  EXPECT_EQ(rank, 5u);
  EXPECT_EQ(dims[1], 2);
  EXPECT_EQ(dims[3], 0);  // past the capacity: untouched
  g_info.destroy_user_data(g_info.user_data);

  host_.target_storage_shape = HostStorage;
  EXPECT_EQ(active_target::StorageShape(Value(), "NC1HWC0"), (std::vector<int64_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(active_target::StorageShape(Value(), "WIDE").size(), 10u);
  EXPECT_EQ(active_target::StorageShape(Value(), "WIDE").back(), 10);
}

TEST_F(TargetWrapper, EstimatesFillOnlyWhatTheHostsStructHolds) {
  AddProbe();
  KilnNode* nodes[] = {FakeNode(1), FakeNode(4)};
  KilnCostEstimate full;
  std::memset(&full, 0, sizeof full);
  full.struct_size = sizeof full;
  ASSERT_EQ(g_info.estimate(g_info.user_data, nodes, 2, &full), nullptr);
  EXPECT_EQ(full.struct_size, sizeof full);
  EXPECT_EQ(full.seconds, 1.25);
  EXPECT_EQ(full.flops, 2u);
  EXPECT_EQ(full.barriers, 1u);
  EXPECT_EQ(full.feasible, 1);
  EXPECT_STREQ(full.engine, "cube");
  EXPECT_STREQ(full.reason, "group of 2");
  // A host whose struct ends after `seconds`: nothing past it is written.
  KilnCostEstimate small;
  std::memset(&small, 0xAB, sizeof small);
  small.struct_size = KILN_STRUCT_SIZE_UNTIL(KilnCostEstimate, seconds);
  ASSERT_EQ(g_info.estimate(g_info.user_data, nodes, 2, &small), nullptr);
  EXPECT_EQ(small.seconds, 1.25);
  EXPECT_EQ(small.struct_size, KILN_STRUCT_SIZE_UNTIL(KilnCostEstimate, seconds));
  unsigned char canary;
  std::memcpy(&canary, &small.compute_seconds, 1);
  EXPECT_EQ(canary, 0xAB);
  KilnStatusCode code = KILN_STATUS_OK;
  EXPECT_EQ(Take(g_info.estimate(g_info.user_data, nodes, 0, &full), &code), "estimate of no nodes");
  EXPECT_EQ(code, KILN_STATUS_INVALID_ARGUMENT);
  g_info.destroy_user_data(g_info.user_data);
}

TEST_F(TargetWrapper, AnOlderHostRefusesTheTarget) {
  host_.abi_version = KILN_ABI_VERSION_1_2;
  try {
    AddProbe();
    FAIL() << "registered on a 1.2 host";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), KILN_STATUS_UNSUPPORTED);
    EXPECT_STREQ(e.what(), "target 'probe' needs a Kiln host of ABI 1.3 or newer (this host speaks 1.2)");
  }
  EXPECT_EQ(g_destroyed, 1);  // the object was not handed over, so the wrapper freed it
  EXPECT_EQ(g_info.name, nullptr);
}

TEST_F(TargetWrapper, ClientHelpersForwardToTheHost) {
  EXPECT_EQ(active_target::ActiveName(), "npu");
  EXPECT_EQ(active_target::Engines(), (std::vector<std::string>{"cube", "vector"}));
  EXPECT_EQ(active_target::NodeEngine(Node(FakeNode(1))), "cube");
  Node group[] = {Node(FakeNode(1)), Node(FakeNode(2)), Node(FakeNode(3))};
  CostEstimate e = active_target::Estimate(group);
  EXPECT_EQ(e.seconds, 3.5);
  EXPECT_EQ(e.flops, 300u);
  EXPECT_EQ(e.barriers, 1u);
  EXPECT_FALSE(e.feasible);
  EXPECT_EQ(e.engine, "vector");
  EXPECT_EQ(e.reason, "over the UB");
  EXPECT_EQ(active_target::Estimate(Node(FakeNode(1))).flops, 100u);
  EXPECT_EQ(active_target::SyncCost("cube", "vector"), 1e-6);
  EXPECT_EQ(active_target::TransferCost(Value(), "ND", "NC1HWC0"), 2e-6);
  EXPECT_EQ(active_target::PreferredFormat(Node(FakeNode(1)), false, 1), "FRACTAL_Z");
  EXPECT_EQ(active_target::PreferredFormat(Node(FakeNode(1)), true, 0), "NC1HWC0");
  EXPECT_EQ(HostConfigDir(), "/opt/kiln/configs");
  try {
    active_target::TransferCost(Value(), "ND", "WEIRD");
    FAIL();
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), KILN_STATUS_INVALID_ARGUMENT);
    EXPECT_STREQ(err.what(), "format 'WEIRD' is not supported");
  }
  g_active = nullptr;
  EXPECT_EQ(active_target::ActiveName(), "");
  g_active = "npu";
}

TEST_F(TargetWrapper, ClientHelpersOnAnOlderOrUnfinishedHost) {
  host_.struct_size = KILN_STRUCT_SIZE_UNTIL(KilnHostApi, fusion_rule_pack_at);  // a 1.2 table
  EXPECT_EQ(active_target::ActiveName(), "");                                    // no target can be active
  try {
    active_target::Engines();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), KILN_STATUS_UNSUPPORTED);
    EXPECT_STREQ(e.what(), "the Kiln host is too old for target_engine_at");
  }
  host_ = MakeHost();
  host_.target_sync_cost = nullptr;  // a 1.3 table with the slot not filled yet
  try {
    active_target::SyncCost("cube", "vector");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), KILN_STATUS_UNSUPPORTED);
    EXPECT_STREQ(e.what(), "the Kiln host does not implement target_sync_cost");
  }
}

}  // namespace
}  // namespace kiln::sdk
