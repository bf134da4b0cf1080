// pass_checkpoint (ABI 1.13): a graph pass keeps its changes part-way and the host frees what they removed, once
// enough is removed to pay for it; a failure after a kept checkpoint undoes only what came after it; --verify-each
// and node passes are declined; PatternFusionPass gives the same graph with its checkpoints kept or declined.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "driver/pass.h"
#include "driver/pass_driver.h"
#include "ir/model.h"
#include "kernels/kernel_registry.h"
#include "options/option_registry.h"
#include "passes/pass_registry.h"
#include "plugin/host_api.h"
#include "plugin/loaded_plugin.h"
#include "plugin/plugin_registration.h"
#include "support/golden.h"
#include "support/pass_runner.h"

namespace kiln {
namespace {

using testing::ParseModel;
using testing::PrintGraph;

// The probe: removes every Relu of the chain but the last, one at a time, asking for a checkpoint after each. It
// fails after `g_fail_after` removals (0: never) and records what it saw.
size_t g_fail_after = 0;
size_t g_kept = 0;       // checkpoints the host kept
size_t g_max_dead = 0;   // the most removed nodes the model held at once during the call
int32_t g_node_kept = -1;  // what a node pass was told

KilnStatus* RemoveRelus(void*, KilnPassContext* ctx, KilnGraph* kg) {
  Graph& g = *plugin::FromKiln(kg);
  Model& m = *g.model();
  size_t removed = 0;
  std::vector<Node*> relus;
  for (const auto& n : g.nodes())
    if (n->op_type() == "Relu" && n->output(0)->has_uses() && !n->output(0)->is_graph_output()) relus.push_back(n.get());
  for (Node* n : relus) {
    g.ReplaceAllUsesWith(n->output(0), n->input(0));
    g.RemoveNode(n);
    g_max_dead = std::max(g_max_dead, m.dead_nodes().size());
    if (g_fail_after && ++removed == g_fail_after)
      return plugin::HostApi().status_create(KILN_STATUS_FAILED, "fails on purpose");
    int32_t kept = -1;
    if (KilnStatus* s = plugin::HostApi().pass_checkpoint(ctx, &kept)) return s;
    if (kept == 1) ++g_kept;
  }
  return nullptr;
}

KilnStatus* AskFromANodePass(void*, KilnPassContext* ctx, KilnNode*) {
  return plugin::HostApi().pass_checkpoint(ctx, &g_node_kept);
}

// x -> Relu x `count` -> y
std::string Chain(size_t count) {
  std::string text = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[4] x) => (float[4] y) {
)";
  std::string prev = "x";
  for (size_t i = 0; i < count; ++i) {
    std::string out = i + 1 == count ? "y" : "r" + std::to_string(i);
    text += "  " + out + " = Relu(" + prev + ")\n";
    prev = out;
  }
  return text + "}";
}

class Checkpoint : public ::testing::Test {
 protected:
  void SetUp() override {
    g_fail_after = 0;
    g_kept = 0;
    g_max_dead = 0;
    g_node_kept = -1;
    plugin_.name = "probe";
    plugin_.file = "/probe.so";
    plugin_.negotiated_version = KILN_ABI_VERSION;
  }

  const PassInfo& Register(bool graph_pass) {
    KilnPassInfo info{};
    info.struct_size = sizeof(KilnPassInfo);
    info.kind = graph_pass ? KILN_PASS_GRAPH : KILN_PASS_NODE;
    info.name = "ProbePass";
    if (graph_pass) info.run_on_graph = RemoveRelus;
    else info.run_on_node = AskFromANodePass;
    plugin::PendingRegistration pending(plugin_, nullptr);
    pending.AddPass(&info);
    pending.Commit({options_, passes_, kernels_, names_});
    return *passes_.Find("ProbePass");
  }

  // Runs the probe as a graph pass over `m`; the driver's stats for it.
  PassStats RunGraph(Model& m, bool verify_each = false) {
    auto pass = Register(true).make_graph({});
    PassDriver d(m, {.verify_each = verify_each});
    d.RunGraphPass(*pass);
    return d.stats().at(0);
  }

  plugin::LoadedPlugin plugin_;
  OptionRegistry options_;
  PassRegistry passes_;
  KernelRegistry kernels_;
  plugin::PluginNames names_;
};

// 6,000 Relus: each removal frees a node and a value, so the host keeps a checkpoint at 2,048 removals (4,096
// removed, more than an eighth of the 3,952 nodes left) and again at 4,096; the last 1,903 never reach 4,096.
TEST_F(Checkpoint, KeptOnceEnoughIsRemovedAndWhatWasRemovedIsFreed) {
  auto m = ParseModel(Chain(6000));
  ASSERT_TRUE(m);
  PassStats st = RunGraph(*m);
  EXPECT_EQ(g_kept, 2u);
  EXPECT_EQ(st.counters["checkpoints"], 2);
  EXPECT_EQ(g_max_dead, 2048u);  // without the checkpoints the model held all 5,999
  EXPECT_EQ(st.changes, 1u);
  EXPECT_EQ(st.failures, 0u);
  EXPECT_EQ(PrintGraph(*m), PrintGraph(*ParseModel(Chain(1))));
}

// 50,000 Relus: the graph's size binds first. After k removals 2k are removed and 50,000 - k nodes are left, so the
// first checkpoint comes at k = 2,941 (5,882 >= 47,059 / 8, rounded down), the next ones 2,768, 2,605, 2,452, 2,308
// and 2,172 removals later, then every 2,048 (the 4,096 floor) until fewer than 2,048 are left: 22 in all.
TEST_F(Checkpoint, RemovedOutnumberingAnEighthOfTheGraphBeforeEachCheckpoint) {
  auto m = ParseModel(Chain(50000));
  ASSERT_TRUE(m);
  PassStats st = RunGraph(*m);
  EXPECT_EQ(g_kept, 22u);
  EXPECT_EQ(g_max_dead, 2941u);
  EXPECT_EQ(m->graph().num_nodes(), 1u);
}

TEST_F(Checkpoint, AFailureUndoesOnlyWhatCameAfterTheLastKeptCheckpoint) {
  auto m = ParseModel(Chain(6000));
  ASSERT_TRUE(m);
  g_fail_after = 3000;
  PassStats st = RunGraph(*m);
  EXPECT_EQ(g_kept, 1u);
  EXPECT_EQ(st.failures, 1u);
  EXPECT_EQ(st.changes, 1u);  // the kept part is a change
  ASSERT_EQ(st.failure_messages.size(), 1u);
  EXPECT_NE(st.failure_messages[0].find("fails on purpose"), std::string::npos) << st.failure_messages[0];
  EXPECT_EQ(m->graph().num_nodes(), 6000u - 2048u);  // the first 2,048 removals stay, the next 952 are undone
}

// 2,000 Relus: 1,990 removals free 3,980 nodes and values, under the 4,096 a checkpoint waits for, so none is kept
// and the failure undoes the pass whole.
TEST_F(Checkpoint, AFailureBeforeAnyKeptCheckpointUndoesEverything) {
  auto m = ParseModel(Chain(2000));
  ASSERT_TRUE(m);
  const std::string before = PrintGraph(*m);
  g_fail_after = 1990;
  PassStats st = RunGraph(*m);
  EXPECT_EQ(g_kept, 0u);
  EXPECT_EQ(st.failures, 1u);
  EXPECT_EQ(st.changes, 0u);
  EXPECT_EQ(PrintGraph(*m), before);
}

TEST_F(Checkpoint, VerifyEachDeclinesAndTheResultIsTheSame) {
  auto m = ParseModel(Chain(6000));
  ASSERT_TRUE(m);
  PassStats st = RunGraph(*m, /*verify_each=*/true);
  EXPECT_EQ(g_kept, 0u);
  EXPECT_EQ(g_max_dead, 5999u);
  EXPECT_EQ(st.counters.count("checkpoints"), 0u);
  EXPECT_EQ(PrintGraph(*m), PrintGraph(*ParseModel(Chain(1))));
}

TEST_F(Checkpoint, ANodePassIsDeclined) {
  auto m = ParseModel(Chain(3));
  ASSERT_TRUE(m);
  auto pass = Register(false).make_node({});
  PassDriver d(*m, {});
  d.RunNodePasses({pass.get()});
  EXPECT_EQ(g_node_kept, 0);
}

// PatternFusionPass asks after every group it applies: on a graph of 6,000 MatMul + Add + Relu groups its
// checkpoints are kept without --verify-each and declined with it, and the two compiles give the same graph.
TEST(CheckpointFusion, PatternFusionGivesTheSameGraphWithItsCheckpointsKept) {
  std::string text = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[1,4] x) => (float[1,4] y) <)";
  const size_t groups = 6000;
  for (size_t i = 0; i < groups; ++i)
    text += std::string(i ? ", " : "") + "float[4,4] w" + std::to_string(i) + " = {1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1}, "
            "float[4] b" + std::to_string(i) + " = {1,2,3,4}";
  text += "> {\n";
  std::string prev = "x";
  for (size_t i = 0; i < groups; ++i) {
    const std::string s = std::to_string(i), out = i + 1 == groups ? "y" : "h" + s;
    text += "  m" + s + " = MatMul(" + prev + ", w" + s + ")\n  a" + s + " = Add(m" + s + ", b" + s + ")\n  " + out +
            " = Relu(a" + s + ")\n";
    prev = out;
  }
  text += "}";
  auto kept = ParseModel(text), declined = ParseModel(text);
  ASSERT_TRUE(kept && declined);
  testing::PassRun with = testing::RunLevel(*kept, "O2", {}, /*verify_each=*/false);
  testing::RunLevel(*declined, "O2", {}, /*verify_each=*/true);
  EXPECT_EQ(PrintGraph(*kept), PrintGraph(*declined));
  int64_t checkpoints = 0, groups_fused = 0;
  for (const auto& stage : with.report["stages"])
    for (const auto& p : stage["passes"])
      if (p["name"] == "PatternFusionPass") {
        checkpoints += p["counters"].value("checkpoints", int64_t{0});
        groups_fused += p["counters"].value("groups_fused", int64_t{0});
      }
  EXPECT_GT(groups_fused, 1000);
  EXPECT_GE(checkpoints, 1);
}

}  // namespace
}  // namespace kiln
