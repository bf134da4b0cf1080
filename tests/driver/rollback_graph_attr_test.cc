// A plugin graph pass that sets a graph attribute (node_set_attr_graph: the host copies the source graph) and then
// fails is rolled back whole: the copy's undo steps ran after the attribute's own undo had freed the copy (a use
// after free in the rollback). The model comes back as it was and verifies.
#include <gtest/gtest.h>

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
#include "verify/verifier.h"

namespace kiln {
namespace {

using testing::ParseModel;
using testing::PrintGraph;

constexpr const char* kModel = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[2] x) => (float[2] y) {
  a = Relu(x)
  b = Neg(a)
  y = If(c) <then_branch = t () => (float[2] r) { r = Neg(b) }, else_branch = e () => (float[2] s) { s = Abs(b) }>
}
)";

// Gives the Relu a copy of the If's then-branch (which reads `b` from outside), then fails.
KilnStatus* SetGraphThenFail(void*, KilnPassContext*, KilnGraph* kg) {
  Graph& g = *plugin::FromKiln(kg);
  Node *relu = nullptr, *cond = nullptr;
  for (const auto& n : g.nodes()) {
    if (n->op_type() == "Relu") relu = n.get();
    if (n->op_type() == "If") cond = n.get();
  }
  if (relu == nullptr || cond == nullptr) return nullptr;  // a branch (the driver runs graph passes on them too)
  KilnGraph* made = nullptr;
  if (KilnStatus* s = plugin::HostApi().node_set_attr_graph(plugin::ToKiln(relu), "body",
                                                            plugin::ToKiln(cond->subgraphs()[0]), &made))
    return s;
  return plugin::HostApi().status_create(KILN_STATUS_FAILED, "fails on purpose");
}

TEST(RollbackGraphAttribute, APassThatSetsAGraphAttributeAndFailsIsUndoneWhole) {
  auto m = ParseModel(kModel);
  ASSERT_TRUE(m);
  const std::string before = PrintGraph(*m);
  const size_t readers = m->graph().FindValue("b")->uses().size();

  plugin::LoadedPlugin plugin;
  plugin.name = "probe";
  plugin.file = "/probe.so";
  plugin.negotiated_version = KILN_ABI_VERSION;
  OptionRegistry options;
  PassRegistry passes;
  KernelRegistry kernels;
  plugin::PluginNames names;
  KilnPassInfo info{};
  info.struct_size = sizeof(KilnPassInfo);
  info.kind = KILN_PASS_GRAPH;
  info.name = "ProbePass";
  info.run_on_graph = SetGraphThenFail;
  plugin::PendingRegistration pending(plugin, nullptr);
  pending.AddPass(&info);
  pending.Commit({options, passes, kernels, names});

  auto pass = passes.Find("ProbePass")->make_graph({});
  PassDriver d(*m, {});
  d.RunGraphPass(*pass);
  EXPECT_EQ(d.stats().at(0).failures, 1u);
  EXPECT_EQ(PrintGraph(*m), before);
  EXPECT_EQ(m->graph().FindValue("b")->uses().size(), readers);
  EXPECT_EQ(m->graph().subgraph_holders(), 1u);
  EXPECT_TRUE(VerifyModel(*m).empty());
}

}  // namespace
}  // namespace kiln
