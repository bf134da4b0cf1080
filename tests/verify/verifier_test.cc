// The verifier accepts every libonnx-testdata model and names each broken invariant it is shown.
#include "verify/verifier.h"

#include <gtest/gtest.h>

#include "ir/model.h"
#include "onnx/onnx_import.h"
#include "support/golden.h"
#include "support/testdata.h"

namespace kiln {
namespace {

constexpr const char* kHeader = R"(<ir_version: 8, opset_import: ["" : 17]>)";

std::string Joined(const std::vector<VerifyIssue>& issues) {
  std::string s;
  for (const auto& i : issues) s += i.where + ": " + i.message + "\n";
  return s;
}

TEST(Verifier, AcceptsEveryTestdataModel) {
  size_t models = 0;
  for (const auto& folder : kiln::testing::TestdataFolders()) {
    for (const auto& dir : kiln::testing::TestdataCases(folder)) {
      auto m = LoadModel((dir / "model.onnx").string());
      EXPECT_EQ(Joined(VerifyModel(*m)), "") << dir;
      ++models;
    }
  }
  EXPECT_EQ(models, 1072u);
}

TEST(Verifier, TypeDisagreementOnOneTypeParameter) {
  auto m = kiln::testing::ParseModel(std::string(kHeader) + R"(
    g (float[2] x, int64[2] i) => (float[2] y) { y = Add(x, i) })");
  ASSERT_TRUE(m);
  std::string issues = Joined(VerifyModel(*m));
  EXPECT_NE(issues.find("both are bound to T"), std::string::npos) << issues;
}

TEST(Verifier, ReadOfAValueFromASiblingSubgraph) {
  auto m = kiln::testing::ParseModel(std::string(kHeader) + R"(
    g (bool c, float[2] x) => (float[2] y) {
      y = If(c) <then_branch = t () => (float[2] ty) { ty = Relu(x) },
                 else_branch = e () => (float[2] ey) { ey = Neg(x) }>
    })");
  ASSERT_TRUE(m);
  ASSERT_EQ(Joined(VerifyModel(*m)), "");
  Node* if_node = m->graph().nodes().front().get();
  Graph* then_g = if_node->subgraphs()[0];
  Graph* else_g = if_node->subgraphs()[1];
  Value* then_value = then_g->nodes().front()->output(0);
  else_g->nodes().front()->SetInput(0, then_value);
  std::string issues = Joined(VerifyModel(*m));
  EXPECT_NE(issues.find("not in scope"), std::string::npos) << issues;
}

TEST(Verifier, CycleAndUndefinedInput) {
  auto m = kiln::testing::ParseModel(std::string(kHeader) + R"(
    g (float[2] x) => (float[2] y) {
      a = Relu(x)
      y = Neg(a)
    })");
  ASSERT_TRUE(m);
  Node* relu = m->graph().nodes().front().get();
  Node* neg = m->graph().nodes().back().get();
  relu->SetInput(0, neg->output(0));
  std::string issues = Joined(VerifyModel(*m));
  EXPECT_NE(issues.find("has a cycle"), std::string::npos) << issues;

  auto m2 = kiln::testing::ParseModel(std::string(kHeader) + R"(
    g (float[2] x) => (float[2] y) { y = Relu(x) })");
  Value* orphan = m2->graph().AddValue("orphan");
  m2->graph().nodes().front()->SetInput(0, orphan);
  issues = Joined(VerifyModel(*m2));
  EXPECT_NE(issues.find("reads 'orphan', which no node, graph input or initializer defines"), std::string::npos)
      << issues;
}

}  // namespace
}  // namespace kiln
