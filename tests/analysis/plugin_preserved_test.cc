// KilnPassInfo.preserved_analyses, from registration to the model: the registrar reads it when the struct covers
// it, and the pass adapters set Model::preserved_analyses to it while a callback runs, restoring the value they
// found when it returns, also when it fails (before the failed call is rolled back).
#include <gtest/gtest.h>

#include <spdlog/spdlog.h>

#include <memory>

#include "analysis/analysis_stats.h"
#include "analysis/dominators.h"
#include "analysis_test_util.h"
#include "driver/pass.h"
#include "driver/pass_context.h"
#include "kernels/kernel_registry.h"
#include "options/option_registry.h"
#include "passes/pass_registry.h"
#include "plugin/loaded_plugin.h"
#include "plugin/plugin_registration.h"
#include "support/error.h"

namespace kiln {
namespace {

using testing::M;
using testing::N;
using testing::ParseModel;

// What the probe callbacks saw, and what they do.
struct Probe {
  uint32_t seen = 0xdeadbeef;
  bool change = false;  // rewire y = Add(b, c) to Add(b, b)
  bool fail = false;
  Node* idom_after = nullptr;  // y's immediate dominator after the change
};
Probe g_probe;

KilnStatus* Body(KilnGraph* graph) {
  Graph& g = *plugin::FromKiln(graph);
  g_probe.seen = g.model()->preserved_analyses;
  if (g_probe.change) {
    Node* y = g.FindValue("y")->producer();
    ImmediateDominator(*y);
    y->SetInput(1, g.FindValue("b"));
    g_probe.idom_after = ImmediateDominator(*y);
  }
  return g_probe.fail ? plugin::MakeStatus(KILN_STATUS_INTERNAL, "fails on purpose") : nullptr;
}
KilnStatus* RunOnGraph(void*, KilnPassContext*, KilnGraph* graph) { return Body(graph); }
KilnStatus* RunOnNode(void*, KilnPassContext*, KilnNode* node) {
  return Body(plugin::ToKiln(plugin::FromKiln(node)->graph()));
}

const char* kDiamond = R"(g (float[2] x) => (float[2] y) {
    a = Relu(x)
    b = Neg(a)
    c = Exp(a)
    y = Add(b, c)
  })";

class PreservedAnalyses : public ::testing::Test {
 protected:
  void SetUp() override {
    g_probe = Probe{};
    plugin_.name = "probe";
    plugin_.file = "/probe.so";
    plugin_.negotiated_version = KILN_ABI_VERSION;
  }

  // Registers one pass through the registrar, as a plugin's register function does.
  const PassInfo* Register(uint32_t kind, uint32_t preserved, size_t struct_size = sizeof(KilnPassInfo)) {
    KilnPassInfo info{};
    info.struct_size = struct_size;
    info.kind = kind;
    info.name = "ProbePass";
    info.run_on_graph = kind == KILN_PASS_GRAPH ? RunOnGraph : nullptr;
    info.run_on_node = kind == KILN_PASS_NODE ? RunOnNode : nullptr;
    info.preserved_analyses = preserved;
    plugin::PendingRegistration pending(plugin_, nullptr);
    pending.AddPass(&info);
    pending.Commit({options_, passes_, kernels_, names_});
    return passes_.Find("ProbePass");
  }

  // Runs a registered pass once on the model's graph (the node pass on y); false when it threw.
  bool RunOnce(const PassInfo& info, Model& m) {
    PassContext ctx(m, spdlog::default_logger());
    try {
      if (info.make_graph) info.make_graph({})->Run(m.graph(), ctx);
      else info.make_node({})->Run(*N(m.graph(), "y"), ctx);
      return true;
    } catch (const Error&) {
      return false;
    }
  }

  plugin::LoadedPlugin plugin_;
  OptionRegistry options_;
  PassRegistry passes_;
  KernelRegistry kernels_;
  plugin::PluginNames names_;
};

TEST_F(PreservedAnalyses, HoldDuringTheCallbackOnly) {
  for (uint32_t kind : {KILN_PASS_GRAPH, KILN_PASS_NODE}) {
    SCOPED_TRACE(kind == KILN_PASS_GRAPH ? "graph pass" : "node pass");
    passes_ = PassRegistry();
    const PassInfo* info = Register(kind, KILN_ANALYSIS_TOPO_ORDER | KILN_ANALYSIS_DOMINATORS | 0x100);
    ASSERT_NE(info, nullptr);
    auto m = ParseModel(M(kDiamond));
    ASSERT_TRUE(m);
    m->preserved_analyses = KILN_ANALYSIS_REACHABILITY;  // whatever was there before
    g_probe = Probe{};
    ASSERT_TRUE(RunOnce(*info, *m));
    EXPECT_EQ(g_probe.seen, uint32_t{KILN_ANALYSIS_TOPO_ORDER | KILN_ANALYSIS_DOMINATORS});  // unknown bits dropped
    EXPECT_EQ(m->preserved_analyses, uint32_t{KILN_ANALYSIS_REACHABILITY});
  }
}

TEST_F(PreservedAnalyses, KeepTheTreeThePassDeclares) {
  const PassInfo* info = Register(KILN_PASS_GRAPH, KILN_ANALYSIS_DOMINATORS);
  auto m = ParseModel(M(kDiamond));
  ASSERT_TRUE(m);
  g_probe.change = true;
  ASSERT_TRUE(RunOnce(*info, *m));
  EXPECT_EQ(g_probe.idom_after, N(m->graph(), "a"));  // kept: the pass said its change keeps dominators
  EXPECT_EQ(AnalysisComputations(m->graph(), analysis_detail::kDominators), 1u);
  // The pass is over: the next change recomputes.
  m->graph().AddNode("Neg", {m->graph().FindValue("c")}, 1);
  EXPECT_EQ(ImmediateDominator(*N(m->graph(), "y")), N(m->graph(), "b"));
}

TEST_F(PreservedAnalyses, AreRestoredWhenTheCallbackFails) {
  for (uint32_t kind : {KILN_PASS_GRAPH, KILN_PASS_NODE}) {
    SCOPED_TRACE(kind == KILN_PASS_GRAPH ? "graph pass" : "node pass");
    passes_ = PassRegistry();
    const PassInfo* info = Register(kind, KILN_ANALYSIS_ALL);
    auto m = ParseModel(M(kDiamond));
    ASSERT_TRUE(m);
    g_probe = Probe{};
    g_probe.change = true;
    g_probe.fail = true;
    EXPECT_FALSE(RunOnce(*info, *m));
    EXPECT_EQ(g_probe.seen, uint32_t{KILN_ANALYSIS_ALL});
    EXPECT_EQ(m->preserved_analyses, 0u);
    // The change was rolled back with nothing preserved: the analyses see the diamond again.
    EXPECT_EQ(ImmediateDominator(*N(m->graph(), "y")), N(m->graph(), "a"));
    EXPECT_EQ(ImmediatePostDominator(*N(m->graph(), "c")), N(m->graph(), "y"));
  }
}

TEST_F(PreservedAnalyses, AreReadOnlyWhenTheStructCoversThem) {
  const PassInfo* info = Register(KILN_PASS_GRAPH, KILN_ANALYSIS_ALL, KILN_STRUCT_SIZE_UNTIL(KilnPassInfo, on_finish_graph));
  auto m = ParseModel(M(kDiamond));
  ASSERT_TRUE(m);
  ASSERT_TRUE(RunOnce(*info, *m));
  EXPECT_EQ(g_probe.seen, 0u);
}

}  // namespace
}  // namespace kiln
