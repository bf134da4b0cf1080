// KilnPassInfo.op_types (ABI 1.12), from registration to the walk: the registrar reads and checks the list when
// the struct covers it and the plugin speaks 1.12; the driver then calls the node pass on nodes of those op types
// only (any domain), on every node without a list; --verify-each calls it on the others too and fails when it
// changes one.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver/op_type_set.h"
#include "driver/pass.h"
#include "driver/pass_driver.h"
#include "ir/model.h"
#include "kernels/kernel_registry.h"
#include "options/option_registry.h"
#include "passes/pass_registry.h"
#include "plugin/loaded_plugin.h"
#include "plugin/plugin_registration.h"
#include "support/error.h"
#include "support/golden.h"

namespace kiln {
namespace {

using testing::ParseModel;

// The op types the probe was called on, and how often; `negate_neg`: it rewrites Neg(x) into Abs(x).
std::map<std::string, int> g_seen;
bool g_negate_neg = false;

KilnStatus* RunOnNode(void*, KilnPassContext*, KilnNode* node) {
  Node& n = *plugin::FromKiln(node);
  ++g_seen[n.domain().empty() ? n.op_type() : n.domain() + "." + n.op_type()];
  if (g_negate_neg && n.op_type() == "Neg") n.SetOpType("Abs", "");
  return nullptr;
}

constexpr const char* kModel = R"(<ir_version: 8, opset_import: ["" : 17, "custom" : 1]>
g (float[2] x) => (float[2] y) {
    a = Relu(x)
    b = Neg(a)
    c = Exp(b)
    d = custom.Relu(c)
    y = Add(c, d)
  })";

class OpTypes : public ::testing::Test {
 protected:
  void SetUp() override {
    g_seen.clear();
    g_negate_neg = false;
    plugin_.name = "probe";
    plugin_.file = "/probe.so";
    plugin_.negotiated_version = KILN_ABI_VERSION;
  }

  // Registers the probe as a node pass listing `types` (`count` of them); null: every node.
  const PassInfo* Register(const char* const* types, size_t count, size_t struct_size = sizeof(KilnPassInfo)) {
    KilnPassInfo info{};
    info.struct_size = struct_size;
    info.kind = KILN_PASS_NODE;
    info.name = "ProbePass";
    info.run_on_node = RunOnNode;
    info.op_types = types;
    info.op_type_count = count;
    plugin::PendingRegistration pending(plugin_, nullptr);
    pending.AddPass(&info);
    pending.Commit({options_, passes_, kernels_, names_});
    return passes_.Find("ProbePass");
  }

  // Walks the model once with the registered pass; what the driver's walk returned.
  bool Walk(const PassInfo& info, Model& m, bool verify_each = false) {
    auto pass = info.make_node({});
    PassDriver d(m, {.verify_each = verify_each});
    return d.RunNodePasses({pass.get()});
  }

  // The registration's error message ("" when it registered).
  std::string RefusedWith(const char* const* types, size_t count) {
    try {
      Register(types, count);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  }

  plugin::LoadedPlugin plugin_;
  OptionRegistry options_;
  PassRegistry passes_;
  KernelRegistry kernels_;
  plugin::PluginNames names_;
};

TEST_F(OpTypes, TheDriverCallsThePassOnTheListedOpTypesOnly) {
  const char* types[] = {"Relu", "Neg", "Relu"};
  const PassInfo* info = Register(types, 3);
  ASSERT_NE(info, nullptr);
  auto m = ParseModel(kModel);
  ASSERT_TRUE(m);
  EXPECT_FALSE(Walk(*info, *m));
  // Relu in either domain (the pass checks domains itself), never Exp or Add; each node once.
  EXPECT_EQ(g_seen, (std::map<std::string, int>{{"Relu", 1}, {"Neg", 1}, {"custom.Relu", 1}}));
}

TEST_F(OpTypes, WithoutAListEveryNode) {
  const std::map<std::string, int> all = {{"Relu", 1}, {"Neg", 1}, {"Exp", 1}, {"custom.Relu", 1}, {"Add", 1}};
  const char* types[] = {"Relu"};
  struct Case {
    const char* what;
    const char* const* types;
    size_t count;
    size_t struct_size;
    uint32_t version;
  };
  const Case cases[] = {
      {"no list", nullptr, 0, sizeof(KilnPassInfo), KILN_ABI_VERSION},
      {"a 1.11 struct", types, 1, KILN_STRUCT_SIZE_UNTIL(KilnPassInfo, prepare), KILN_ABI_VERSION},
      {"a plugin speaking 1.11", types, 1, sizeof(KilnPassInfo), KILN_ABI_VERSION_1_11},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    passes_ = PassRegistry();
    g_seen.clear();
    plugin_.negotiated_version = c.version;
    const PassInfo* info = Register(c.types, c.count, c.struct_size);
    ASSERT_NE(info, nullptr);
    auto m = ParseModel(kModel);
    ASSERT_TRUE(m);
    Walk(*info, *m);
    EXPECT_EQ(g_seen, all);
  }
}

TEST_F(OpTypes, AListThatCannotBeReadIsRefusedNamingThePass) {
  const char* types[] = {"Relu", nullptr};
  const char* empty[] = {"Relu", ""};
  EXPECT_EQ(RefusedWith(nullptr, 2), "pass 'ProbePass': op_type_count is not 0 but op_types is NULL");
  EXPECT_EQ(RefusedWith(types, 0), "pass 'ProbePass': op_types lists no op type (NULL runs the pass on every node)");
  EXPECT_EQ(RefusedWith(types, 2), "pass 'ProbePass': op_types[1] is NULL");
  EXPECT_EQ(RefusedWith(empty, 2), "pass 'ProbePass': op_types[1] is empty");
  EXPECT_EQ(passes_.Find("ProbePass"), nullptr);
}

TEST_F(OpTypes, VerifyEachFailsAPassThatChangesAnOpTypeItDoesNotDeclare) {
  const char* types[] = {"Relu"};
  const PassInfo* info = Register(types, 1);
  g_negate_neg = true;
  // Without --verify-each the Neg is never shown to the pass, and stays.
  auto m = ParseModel(kModel);
  ASSERT_TRUE(m);
  EXPECT_FALSE(Walk(*info, *m));
  EXPECT_EQ(g_seen.count("Neg"), 0u);
  // With it, the pass sees every node, and its change to the Neg is an error naming both.
  g_seen.clear();
  m = ParseModel(kModel);
  ASSERT_TRUE(m);
  try {
    Walk(*info, *m, true);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("pass ProbePass: it changed node "), std::string::npos) << what;
    EXPECT_NE(what.find(" (Abs), whose op type is not among those it declares (KilnPassInfo.op_types)"),
              std::string::npos)
        << what;
  }
  // A pass whose changes stay within its op types passes the check.
  g_negate_neg = false;
  g_seen.clear();
  m = ParseModel(kModel);
  ASSERT_TRUE(m);
  EXPECT_FALSE(Walk(*info, *m, true));
  EXPECT_EQ(g_seen.size(), 5u);
}

TEST(OpTypeSet, ComparesInternedOpTypes) {
  std::vector<std::string> types = {"Transpose", "MatMul", "Transpose"};
  OpTypeSet set(types);
  EXPECT_EQ(set.size(), 2u);
  auto m = ParseModel(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2,2] x) => (float[2,2] y) {
    a = Transpose(x)
    y = MatMul(a, a)
  })");
  ASSERT_TRUE(m);
  for (const auto& n : m->graph().nodes()) EXPECT_TRUE(set.Contains(*n)) << n->op_type();
  Node* a = m->graph().FindValue("a")->producer();
  a->SetOpType("Transposed", "");
  EXPECT_FALSE(set.Contains(*a));
}

}  // namespace
}  // namespace kiln
