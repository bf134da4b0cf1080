// The verifier accepts every libonnx-testdata model and names each broken invariant it is shown.
#include "verify/verifier.h"

#include <gtest/gtest.h>

#include "ir/model.h"
#include "onnx/onnx_import.h"
#include "support/error.h"
#include "support/golden.h"
#include "support/pass_runner.h"
#include "support/testdata.h"

namespace kiln {
namespace {

constexpr const char* kHeader = R"(<ir_version: 8, opset_import: ["" : 17]>)";

std::string Joined(const std::vector<VerifyIssue>& issues) {
  std::string s;
  for (const auto& i : issues) s += IssueText(i) + "\n";
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

TEST(Verifier, KnownIssuesAreLeftOutAndNewOnesStillFail) {
  auto m = kiln::testing::ParseModel(std::string(kHeader) + R"(
    g (float[2] x, int64[2] i, int32[2] k) => (float[2] y, float[2] z) { y = Add(x, i)  z = Add(x, k) })");
  ASSERT_TRUE(m);
  std::vector<VerifyIssue> issues = VerifyModel(*m);
  ASSERT_EQ(issues.size(), 2u) << Joined(issues);
  const std::string first = IssueText(issues[0]), second = IssueText(issues[1]);
  IssueSet known{first};
  try {
    VerifyModelOrThrow(*m, "after pass P", &known);
    ADD_FAILURE() << "the issue not known did not fail";
  } catch (const Error& e) {
    std::string what = e.what();
    EXPECT_EQ(e.code(), ExitCode::kInternal);
    EXPECT_NE(what.find("verification failed after pass P: " + second), std::string::npos) << what;
    EXPECT_EQ(what.find(first), std::string::npos) << what;
  }
  known.insert(second);
  EXPECT_NO_THROW(VerifyModelOrThrow(*m, "after pass P", &known));
  EXPECT_THROW(VerifyModelOrThrow(*m, "after pass P"), Error);
}

// An opset-6 Constant holding int64 breaks Constant-1's type constraint (float types only) once inference types its
// output, as three of the ONNX test-data models do. --verify-each reports that as the input's and goes on, where it
// used to fail the compile "after pass InferShapePass"; the pass runner compiles with --verify-each and --strict.
TEST(Verifier, VerifyEachDoesNotBlameAPassForTheInputsOwnIssues) {
  const std::string text = R"(<ir_version: 3, opset_import: ["" : 6]>
    g (float[2,3] x) => (float[3,2] y) {
      s = Constant <value = int64[2] {3, 2}> ()
      y = Reshape(x, s)
    })";
  auto m = kiln::testing::ParseModel(text);
  ASSERT_TRUE(m);
  ASSERT_EQ(Joined(VerifyModel(*m)), "");  // untyped, the Constant's output breaks nothing yet
  kiln::testing::PassRun run = kiln::testing::RunPasses(*m, {"InferShapePass"});
  ASSERT_TRUE(run.report.contains("input_issues")) << run.report.dump();
  ASSERT_EQ(run.report["input_issues"].size(), 1u) << run.report["input_issues"].dump();
  EXPECT_NE(run.report["input_issues"][0].get<std::string>().find("(Constant): 's' is tensor(int64), which type "
                                                                   "parameter T does not allow"),
            std::string::npos)
      << run.report["input_issues"].dump();
  EXPECT_EQ(Joined(VerifyModel(*m)), run.report["input_issues"][0].get<std::string>() + "\n");  // typed now
  // A model with nothing wrong lists nothing.
  auto clean = kiln::testing::ParseModel(std::string(kHeader) + R"(g (float[2] x) => (float[2] y) { y = Relu(x) })");
  ASSERT_TRUE(clean);
  EXPECT_EQ(kiln::testing::RunPasses(*clean, {"InferShapePass"}).report["input_issues"], nlohmann::json::array());
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
