// The ABI 1.5 slot graph_set_node_order, called the way a plugin calls it: a valid topological order becomes the
// order graph_topo_order gives and export writes; an order that misses or repeats a node, or puts a reader (inside a
// subgraph too) before its producer, is refused with INVALID_ARGUMENT and changes nothing; a rollback restores it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis_test_util.h"
#include "plugin/host_api.h"
#include "support/golden.h"

namespace kiln {
namespace {

using plugin::ToKiln;
using testing::M;
using testing::N;
using testing::ParseModel;

const char* kGraph = R"(g (bool cnd, float[2] x) => (float[2] y) {
    a = Relu(x)
    b = Neg(a)
    c = Exp(a)
    d = Add(b, c)
    y = If(cnd) <then_branch = t () => (float[2] ty) { ty = Sigmoid(d) },
                 else_branch = e () => (float[2] ey) { ey = Identity(a) }>
  })";

class NodeOrderSlot : public ::testing::Test {
 protected:
  std::vector<KilnNode*> Order(const Graph& g, std::initializer_list<const char*> names) {
    std::vector<KilnNode*> out;
    for (const char* n : names) out.push_back(ToKiln(N(g, n)));
    return out;
  }
  std::vector<KilnNode*> Topo(Graph& g) {
    std::vector<KilnNode*> out(api.graph_topo_order(ToKiln(&g), nullptr, 0));
    api.graph_topo_order(ToKiln(&g), out.data(), out.size());
    return out;
  }
  // INVALID_ARGUMENT with `words` in its message.
  void ExpectRefused(KilnStatus* s, const std::string& words) {
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(api.status_code(s), KILN_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(api.status_message(s)).find(words), std::string::npos) << api.status_message(s);
    api.status_release(s);
  }
  const KilnHostApi& api = plugin::HostApi();
};

TEST_F(NodeOrderSlot, AValidOrderIsWhatExportWrites) {
  auto m = ParseModel(M(kGraph));
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  std::vector<KilnNode*> order = Order(g, {"a", "c", "b", "d", "y"});
  ASSERT_EQ(api.graph_set_node_order(ToKiln(&g), order.data(), order.size()), nullptr);
  EXPECT_EQ(Topo(g), order);
  const std::string printed = testing::PrintGraph(*m);
  EXPECT_LT(printed.find("Exp"), printed.find("Neg")) << printed;
}

TEST_F(NodeOrderSlot, RefusesWhatIsNoTopologicalOrderOfTheGraph) {
  auto m = ParseModel(M(kGraph));
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  const std::vector<KilnNode*> before = Topo(g);
  std::vector<KilnNode*> short_order = Order(g, {"a", "b", "c", "d"});
  ExpectRefused(api.graph_set_node_order(ToKiln(&g), short_order.data(), short_order.size()), "lists 4 nodes");
  std::vector<KilnNode*> twice = Order(g, {"a", "b", "b", "d", "y"});
  ExpectRefused(api.graph_set_node_order(ToKiln(&g), twice.data(), twice.size()), "listed twice");
  std::vector<KilnNode*> reader_first = Order(g, {"b", "a", "c", "d", "y"});
  ExpectRefused(api.graph_set_node_order(ToKiln(&g), reader_first.data(), reader_first.size()),
                "Neg node writing 'b' comes before Relu node writing 'a', whose output it reads");
  // The If reads d inside its then-branch.
  std::vector<KilnNode*> holder_first = Order(g, {"a", "b", "c", "y", "d"});
  ExpectRefused(api.graph_set_node_order(ToKiln(&g), holder_first.data(), holder_first.size()), "If node writing 'y' comes before Add node writing 'd'");
  EXPECT_EQ(Topo(g), before);
}

TEST_F(NodeOrderSlot, ARollbackRestoresTheOrder) {
  auto m = ParseModel(M(kGraph));
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  const std::vector<KilnNode*> before = Topo(g);
  const std::string printed = testing::PrintGraph(*m);
  m->journal().Begin();
  std::vector<KilnNode*> order = Order(g, {"a", "c", "b", "d", "y"});
  ASSERT_EQ(api.graph_set_node_order(ToKiln(&g), order.data(), order.size()), nullptr);
  EXPECT_EQ(Topo(g), order);
  m->journal().Rollback();
  EXPECT_EQ(Topo(g), before);
  EXPECT_EQ(testing::PrintGraph(*m), printed);
}

}  // namespace
}  // namespace kiln
