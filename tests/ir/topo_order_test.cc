// IsAcyclic: one pass over the reads when they all go forward in the nodes' positions, TopologicalOrder when one
// goes back (acyclic all the same, or a cycle).
#include "ir/topo_order.h"

#include <gtest/gtest.h>

#include "ir/model.h"
#include "support/golden.h"

namespace kiln {
namespace {

using testing::ParseModel;

constexpr const char* kHeader = R"(<ir_version: 8, opset_import: ["" : 17]>)";

TEST(IsAcyclic, ReadsGoingForwardInPosition) {
  auto m = ParseModel(std::string(kHeader) + R"(g (float[2] x) => (float[2] y) { a = Relu(x)  b = Neg(a)  y = Abs(b) })");
  ASSERT_TRUE(m);
  EXPECT_TRUE(IsAcyclic(m->graph()));
}

TEST(IsAcyclic, ReadsGoingBackInPositionButNoCycle) {
  auto m = ParseModel(std::string(kHeader) + R"(g (float[2] x) => (float[2] y) { y = Abs(b)  b = Neg(a)  a = Relu(x) })");
  ASSERT_TRUE(m);
  EXPECT_TRUE(IsAcyclic(m->graph()));
  EXPECT_TRUE(TopologicalOrder(m->graph()).cycle_nodes.empty());
}

TEST(IsAcyclic, ACycleIsFoundWhicheverWayItsReadsGo) {
  for (const char* body : {"a = Relu(x)  b = Neg(a)  y = Abs(b)", "y = Abs(b)  b = Neg(a)  a = Relu(x)"}) {
    auto m = ParseModel(std::string(kHeader) + "g (float[2] x) => (float[2] y) { " + body + " }");
    ASSERT_TRUE(m);
    Graph& g = m->graph();
    Node* relu = g.FindValue("a")->producer();
    relu->SetInput(0, g.FindValue("b"));  // Relu reads Neg, which reads Relu
    EXPECT_FALSE(IsAcyclic(g)) << body;
  }
}

}  // namespace
}  // namespace kiln
