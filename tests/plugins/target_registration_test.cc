// Registering targets in process (PendingRegistration::AddTarget): ABI 1.3's fields are kept (names, engines,
// formats, details, callbacks), each refused field names what is wrong and keeps nothing, the 1.3 fields are never
// read from a plugin that negotiated 1.2 or from a struct too small to hold them, a 1.3 struct whose 1.3 fields are
// all zero is a bare name, the first registration of a name wins, and destroy_user_data runs once at unload
// (only for what was accepted). Also the slots without an active target, and the active-target scope.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <utility>
#include <stdexcept>

#include "ir/model.h"
#include "plugin/host_api.h"
#include "plugin/plugin_registration.h"
#include "support/error.h"
#include "target/active_target.h"

namespace kiln::plugin {
namespace {

int g_destroyed = 0;
void Destroy(void*) { ++g_destroyed; }
KilnStatus* Engine(void*, KilnNode*, const char** out) {
  *out = "vec";
  return nullptr;
}
KilnStatus* Estimate(void*, KilnNode* const*, size_t, KilnCostEstimate* out) {
  out->seconds = 1;
  return nullptr;
}

const char* const kEngines[] = {"mat", "vec"};
const char* const kFormats[] = {"ND"};

KilnTargetInfo FullInfo(const char* name) {
  KilnTargetInfo info;
  std::memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.name = name;
  info.description = "a test target";
  info.engines = kEngines;
  info.engine_count = 2;
  info.formats = kFormats;
  info.format_count = 1;
  info.details_json = R"({"cores": 2})";
  info.user_data = &g_destroyed;
  info.node_engine = Engine;
  info.estimate = Estimate;
  info.destroy_user_data = Destroy;
  return info;
}

class TargetRegistration : public ::testing::Test {
 protected:
  void SetUp() override {
    g_destroyed = 0;
    plugin_.name = "p";
    plugin_.file = "/x/libp.so";
    plugin_.negotiated_version = KILN_ABI_VERSION_1_3;
  }
  // The message AddTarget refuses `info` with ("" when it is accepted).
  std::string Refusal(const KilnTargetInfo& info) {
    PendingRegistration pending(plugin_, nullptr);
    try {
      pending.AddTarget(&info);
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  }
  // Registers `info` and commits, returning the record's target.
  std::shared_ptr<const PluginTarget> Commit(const KilnTargetInfo& info) {
    PendingRegistration pending(plugin_, nullptr);
    pending.AddTarget(&info);
    pending.Commit({options_, passes_, kernels_, names_});
    return plugin_.targets.empty() ? nullptr : plugin_.targets.back();
  }

  LoadedPlugin plugin_;
  OptionRegistry options_;
  PassRegistry passes_;
  KernelRegistry kernels_;
  PluginNames names_;
};

TEST_F(TargetRegistration, KeepsEveryField) {
  auto t = Commit(FullInfo("npu"));
  ASSERT_NE(t, nullptr);
  EXPECT_FALSE(t->bare);
  EXPECT_EQ(t->name, "npu");
  EXPECT_EQ(t->plugin, "p");
  EXPECT_EQ(t->file, "/x/libp.so");
  EXPECT_EQ(t->description, "a test target");
  EXPECT_EQ(t->engines, (std::vector<std::string>{"mat", "vec"}));
  EXPECT_EQ(t->formats, (std::vector<std::string>{"ND"}));
  EXPECT_EQ(t->details_json, R"({"cores": 2})");
  EXPECT_EQ(t->node_engine, &Engine);
  EXPECT_EQ(t->estimate, &Estimate);
  EXPECT_EQ(t->sync_cost, nullptr);
  EXPECT_EQ(plugin_.registrations.back().detail, "engines mat, vec");
  EXPECT_EQ(g_destroyed, 0);
  ASSERT_EQ(plugin_.destroyers.size(), 1u);  // destroyed at unload, like every registration's user_data
  plugin_.destroyers[0].first(plugin_.destroyers[0].second);
  EXPECT_EQ(g_destroyed, 1);
}

TEST_F(TargetRegistration, RefusesWhatIsMissingOrWrongAndKeepsNothing) {
  struct Case {
    void (*edit)(KilnTargetInfo&);
    std::string words;
  };
  const Case cases[] = {
      {[](KilnTargetInfo& i) { i.node_engine = nullptr; }, "target 'npu' has no node_engine callback"},
      {[](KilnTargetInfo& i) { i.estimate = nullptr; }, "target 'npu' has no estimate callback"},
      {[](KilnTargetInfo& i) { i.engine_count = 0; }, "target 'npu' names no engine"},
      {[](KilnTargetInfo& i) { i.engines = nullptr; }, "target 'npu': engines is NULL"},
      {[](KilnTargetInfo& i) { i.formats = nullptr; }, "target 'npu': formats is NULL"},
      {[](KilnTargetInfo& i) { i.details_json = "[1, 2]"; }, "details_json is not a JSON object"},
      {[](KilnTargetInfo& i) { i.details_json = "{oops"; }, "details_json is not a JSON object"},
      {[](KilnTargetInfo& i) {
         static const char* const twice[] = {"mat", "mat"};
         i.engines = twice;
       },
       "engine 'mat' is listed twice"},
      {[](KilnTargetInfo& i) {
         static const char* const empty[] = {"mat", ""};
         i.engines = empty;
       },
       "engine 1 has no name"},
      {[](KilnTargetInfo& i) { i.name = ""; }, "a target has no name"},
      {[](KilnTargetInfo& i) { i.struct_size = 8; }, "smaller than ABI 1.0's"},
  };
  for (const Case& c : cases) {
    KilnTargetInfo info = FullInfo("npu");
    c.edit(info);
    std::string message = Refusal(info);
    EXPECT_NE(message.find(c.words), std::string::npos) << "'" << c.words << "' in: " << message;
  }
  EXPECT_EQ(g_destroyed, 0) << "a refused registration's destroy_user_data is never called";
}

TEST_F(TargetRegistration, TheFieldsOf1_3AreNotReadFromA1_2PluginOrASmallStruct) {
  plugin_.negotiated_version = KILN_ABI_VERSION_1_2;
  KilnTargetInfo info = FullInfo("old");
  info.estimate = nullptr;  // would be refused if it were read
  auto t = Commit(info);
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(t->bare);
  EXPECT_TRUE(t->engines.empty());
  EXPECT_EQ(t->node_engine, nullptr);
  EXPECT_TRUE(plugin_.destroyers.empty()) << "destroy_user_data of a 1.2 plugin is not read either";

  plugin_.negotiated_version = KILN_ABI_VERSION_1_3;
  info = FullInfo("small");
  info.struct_size = KILN_TARGET_INFO_SIZE_1_0;
  t = Commit(info);
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(t->bare);
  // A 1.3 struct with only the name set (what the C++ wrapper's AddTarget(name) sends) is a bare name too.
  KilnTargetInfo zero;
  std::memset(&zero, 0, sizeof zero);
  zero.struct_size = sizeof zero;
  zero.name = "zero";
  t = Commit(zero);
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(t->bare);
  EXPECT_NE(plugin_.registrations.back().detail.find("name only"), std::string::npos);
}

TEST_F(TargetRegistration, TheFirstRegistrationOfANameWins) {
  names_.targets["npu"] = "earlier";
  PendingRegistration pending(plugin_, nullptr);
  KilnTargetInfo info = FullInfo("npu");
  pending.AddTarget(&info);
  pending.Commit({options_, passes_, kernels_, names_});
  EXPECT_TRUE(plugin_.targets.empty());
  ASSERT_EQ(plugin_.registrations.size(), 1u);
  EXPECT_EQ(plugin_.registrations[0].shadowed_by, "earlier");
  EXPECT_EQ(plugin_.destroyers.size(), 1u) << "a shadowed target is still destroyed at unload";

  PendingRegistration twice(plugin_, nullptr);
  KilnTargetInfo again = FullInfo("twice");
  twice.AddTarget(&again);
  EXPECT_THROW(twice.AddTarget(&again), std::invalid_argument);
}

// ABI 1.7: a deferred target (describe set) registers its name; the rest comes from describe, asked once.
int g_described = 0;
KilnStatus* DescribeOk(void*, KilnTargetInfo* out) {
  ++g_described;
  KilnTargetInfo full = FullInfo("ignored");  // name, user_data, destroy and describe of out are not read
  const size_t size = out->struct_size;
  std::memcpy(static_cast<void*>(out), &full, std::min(size, sizeof full));
  out->struct_size = size;
  return nullptr;
}
KilnStatus* DescribeFails(void*, KilnTargetInfo*) {
  ++g_described;
  return MakeStatus(KILN_STATUS_INVALID_ARGUMENT, "chip.yaml:3:7: a rate must be positive");
}
KilnStatus* DescribeNoEngines(void*, KilnTargetInfo* out) {
  ++g_described;
  out->node_engine = Engine;
  out->estimate = Estimate;
  return nullptr;
}

KilnTargetInfo DeferredInfo(const char* name, KilnTargetDescribeFn describe) {
  KilnTargetInfo info;
  std::memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.name = name;
  info.user_data = &g_destroyed;
  info.destroy_user_data = Destroy;
  info.describe = describe;
  return info;
}

TEST_F(TargetRegistration, ADeferredTargetIsDescribedOnceWhenFirstNeeded) {
  plugin_.negotiated_version = KILN_ABI_VERSION_1_7;
  g_described = 0;
  auto t = Commit(DeferredInfo("npu", DescribeOk));
  ASSERT_NE(t, nullptr);
  EXPECT_FALSE(t->bare);
  EXPECT_TRUE(t->engines.empty());
  EXPECT_EQ(g_described, 0) << "registration does not ask for the description";
  EXPECT_EQ(plugin_.registrations.back().detail, "described when first used (engines read then)");
  PluginTarget& target = *plugin_.targets.back();
  DescribeTarget(target);
  DescribeTarget(target);
  EXPECT_EQ(g_described, 1);
  EXPECT_EQ(target.name, "npu");
  EXPECT_EQ(target.description, "a test target");
  EXPECT_EQ(target.engines, (std::vector<std::string>{"mat", "vec"}));
  EXPECT_EQ(target.formats, (std::vector<std::string>{"ND"}));
  EXPECT_EQ(target.details_json, R"({"cores": 2})");
  EXPECT_EQ(target.node_engine, &Engine);
  EXPECT_EQ(target.user_data, &g_destroyed) << "the callbacks get the registration's user_data";
  EXPECT_EQ(target.describe, nullptr);
  ASSERT_EQ(plugin_.destroyers.size(), 1u);
}

TEST_F(TargetRegistration, ADeferredTargetsFailureNamesItAndIsNotAskedAgain) {
  plugin_.negotiated_version = KILN_ABI_VERSION_1_7;
  for (auto [describe, words] : {std::pair{&DescribeFails, "chip.yaml:3:7: a rate must be positive"},
                                 std::pair{&DescribeNoEngines, "its description names no engine"}}) {
    g_described = 0;
    plugin_.targets.clear();
    names_.targets.clear();
    ASSERT_NE(Commit(DeferredInfo("npu", describe)), nullptr);
    PluginTarget& target = *plugin_.targets.back();
    for (int i = 0; i < 2; ++i) {
      try {
        DescribeTarget(target);
        ADD_FAILURE() << "described: " << words;
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ExitCode::kPlugin);
        std::string m = e.what();
        EXPECT_NE(m.find("target 'npu' of plugin p (/x/libp.so)"), std::string::npos) << m;
        EXPECT_NE(m.find(words), std::string::npos) << m;
      }
    }
    EXPECT_EQ(g_described, 1);
    EXPECT_FALSE(target.describe_error.empty());
    EXPECT_TRUE(target.engines.empty());
  }
}

TEST_F(TargetRegistration, ADeferredTargetGivesItsModelOnlyFromDescribe) {
  plugin_.negotiated_version = KILN_ABI_VERSION_1_7;
  KilnTargetInfo both = FullInfo("npu");
  both.describe = DescribeOk;
  EXPECT_NE(Refusal(both).find("sets describe and also engines"), std::string::npos) << Refusal(both);
  // A plugin that negotiated 1.6 has no describe: its user_data alone is a 1.3 target without callbacks.
  plugin_.negotiated_version = KILN_ABI_VERSION_1_6;
  EXPECT_NE(Refusal(DeferredInfo("npu", DescribeOk)).find("has no node_engine callback"), std::string::npos);
}

TEST(TargetSlots, WithoutAnActiveTargetTheyAnswerNone) {
  const KilnHostApi& api = HostApi();
  ASSERT_EQ(target::ActiveTarget(), nullptr);
  EXPECT_EQ(api.target_active(), nullptr);
  EXPECT_EQ(api.target_engine_count(), 0u);
  EXPECT_EQ(api.target_engine_at(0), nullptr);
  double seconds = 0;
  KilnStatus* s = api.target_sync_cost("a", "b", &seconds);
  EXPECT_EQ(api.status_code(s), KILN_STATUS_NOT_FOUND);
  EXPECT_NE(std::string(api.status_message(s)).find("--target"), std::string::npos);
  api.status_release(s);
  s = api.target_estimate(nullptr, 0, nullptr);
  EXPECT_EQ(api.status_code(s), KILN_STATUS_INVALID_ARGUMENT);
  api.status_release(s);
}

TEST(TargetSlots, TheScopeMakesATargetActiveAndNests) {
  PluginTarget a, b;
  a.name = "a";
  a.engines = {"x", "y"};
  a.bare = false;
  b.name = "b";
  const KilnHostApi& api = HostApi();
  {
    target::ActiveTargetScope outer(&a);
    EXPECT_STREQ(api.target_active(), "a");
    EXPECT_EQ(api.target_engine_count(), 2u);
    EXPECT_STREQ(api.target_engine_at(1), "y");
    EXPECT_EQ(api.target_engine_at(2), nullptr);
    double seconds = -1;
    // No sync_cost callback: no barriers; an engine the target lacks is refused.
    EXPECT_EQ(api.target_sync_cost("x", "y", &seconds), nullptr);
    EXPECT_EQ(seconds, 0);
    KilnStatus* s = api.target_sync_cost("x", "z", &seconds);
    EXPECT_EQ(api.status_code(s), KILN_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(api.status_message(s)).find("'z' is not an engine of target 'a'"), std::string::npos)
        << api.status_message(s);
    api.status_release(s);
    {
      target::ActiveTargetScope none(nullptr);
      EXPECT_EQ(api.target_active(), nullptr);
    }
    target::ActiveTargetScope inner(&b);
    EXPECT_STREQ(api.target_active(), "b");
    s = api.target_sync_cost("x", "y", &seconds);
    EXPECT_EQ(api.status_code(s), KILN_STATUS_UNSUPPORTED);  // a bare target has no cost model
    api.status_release(s);
  }
  EXPECT_EQ(api.target_active(), nullptr);
}

// ABI 1.6: a storage_shape callback is kept only from a plugin that negotiated 1.6; target_storage_shape forwards
// to it, copies what fits and tells the rank, and refuses without a target or without the callback.
KilnStatus* Blocked(void*, KilnValue*, const char* format, int64_t* dims, size_t capacity, size_t* rank) {
  const int64_t out[] = {1, 2, 8, 8, 16};
  *rank = std::string_view(format) == "NC1HWC0" ? 5 : 2;
  for (size_t i = 0; i < std::min(capacity, *rank); ++i) dims[i] = out[i];
  return nullptr;
}

TEST_F(TargetRegistration, TheStorageShapeCallbackIsReadOnlyFromA1_6Plugin) {
  KilnTargetInfo info = FullInfo("t16");
  info.storage_shape = Blocked;
  std::shared_ptr<const PluginTarget> old = Commit(info);  // negotiated 1.3
  ASSERT_TRUE(old);
  EXPECT_EQ(old->storage_shape, nullptr);
  plugin_.negotiated_version = KILN_ABI_VERSION_1_6;
  info.name = "t16b";
  std::shared_ptr<const PluginTarget> t = Commit(info);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->storage_shape, &Blocked);
}

TEST(TargetSlots, StorageShapeForwardsCopiesWhatFitsAndRefusesWithoutACallback) {
  const KilnHostApi& api = HostApi();
  Model model;
  Value& v = *model.graph().AddValue("v");
  int64_t dims[8] = {};
  size_t rank = 0;
  KilnStatus* s = api.target_storage_shape(ToKiln(&v), "NC1HWC0", dims, 8, &rank);
  EXPECT_EQ(api.status_code(s), KILN_STATUS_NOT_FOUND);
  api.status_release(s);
  PluginTarget t;
  t.name = "t";
  t.plugin = "p";
  t.engines = {"x"};
  t.bare = false;
  target::ActiveTargetScope scope(&t);
  s = api.target_storage_shape(ToKiln(&v), "NC1HWC0", dims, 8, &rank);
  EXPECT_EQ(api.status_code(s), KILN_STATUS_FAILED_PRECONDITION);
  EXPECT_NE(std::string(api.status_message(s)).find("does not describe storage shapes"), std::string::npos)
      << api.status_message(s);
  api.status_release(s);
  t.storage_shape = Blocked;
  ASSERT_EQ(api.target_storage_shape(ToKiln(&v), "NC1HWC0", dims, 8, &rank), nullptr);
  EXPECT_EQ(rank, 5u);
  EXPECT_EQ(dims[1], 2);
  EXPECT_EQ(dims[4], 16);
  int64_t two[2] = {};
  ASSERT_EQ(api.target_storage_shape(ToKiln(&v), "NC1HWC0", two, 2, &rank), nullptr);  // the rank says 5
  EXPECT_EQ(rank, 5u);
  EXPECT_EQ(two[1], 2);
  ASSERT_EQ(api.target_storage_shape(ToKiln(&v), "NC1HWC0", nullptr, 0, &rank), nullptr);
  EXPECT_EQ(rank, 5u);
  s = api.target_storage_shape(ToKiln(&v), "NC1HWC0", nullptr, 3, &rank);
  EXPECT_EQ(api.status_code(s), KILN_STATUS_INVALID_ARGUMENT);
  api.status_release(s);
}

}  // namespace
}  // namespace kiln::plugin
