// Outline and Inline (host/ir/outline.h): what the call reads and returns, the refusals and their reasons, body
// reuse for groups of the same shape, attributes passed by reference, embedded constants, subgraphs, and that
// inlining gives back the graph that was outlined.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "driver/graph_fingerprint.h"
#include "ir/model.h"
#include "ir/outline.h"
#include "ir_test_models.h"
#include "onnx/onnx_export.h"
#include "support/golden.h"
#include "verify/verifier.h"

namespace kiln::testing {
namespace {

// Two branches from x: u = Relu(Mul(x, w)) and v = Sigmoid(Mul(x, w2)); y = Add(u, v); s = Sqrt(u) another output.
const char* kBranches = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[4] x) => (float[4] y, float[4] s) <float[4] w = {1, 2, 3, 4}, float[4] w2 = {5, 6, 7, 8}, float[1] eps = {0.5}> {
  m1 = Mul (x, w)
  u = Relu (m1)
  m2 = Mul (x, w2)
  v = Sigmoid (m2)
  y = Add (u, v)
  e = Add (u, eps)
  s = Sqrt (e)
}
)";

Node* Named(const Graph& g, const std::string& output) {
  Value* v = g.FindValue(output);
  return v ? v->producer() : nullptr;
}

std::vector<Node*> Producers(const Graph& g, std::initializer_list<const char*> outputs) {
  std::vector<Node*> out;
  for (const char* o : outputs) out.push_back(Named(g, o));
  return out;
}

// The printed graph's lines, sorted: equal for graphs that differ only in node order.
std::multiset<std::string> Lines(const Model& m) {
  std::multiset<std::string> lines;
  std::istringstream in(PrintGraph(m));
  for (std::string l; std::getline(in, l);) lines.insert(l);
  return lines;
}

TEST(Outline, OutlineThenInlineGivesBackTheGraph) {
  auto m = ParseModel(kBranches);
  ASSERT_TRUE(m);
  const auto lines = Lines(*m);
  const uint64_t fingerprint = StructuralFingerprint(m->graph());
  OutlineResult r = Outline(m->graph(), Producers(m->graph(), {"m1", "u"}), {});
  ASSERT_TRUE(r.refusal.empty()) << r.refusal;
  ASSERT_NE(r.function, nullptr);
  // It reads x and w, and returns u (read by y's and e's Adds) under its own name.
  EXPECT_EQ(r.call->num_inputs(), 2u);
  EXPECT_EQ(r.call->input(0)->name(), "x");
  EXPECT_EQ(r.call->input(1)->name(), "w");
  ASSERT_EQ(r.call->num_outputs(), 1u);
  EXPECT_EQ(r.call->output(0)->name(), "u");
  EXPECT_EQ(r.call->domain(), "kiln.fused");
  EXPECT_TRUE(m->OpsetVersion("kiln.fused").has_value());
  EXPECT_EQ(r.function->body().num_nodes(), 2u);
  EXPECT_EQ(m->graph().num_nodes(), 6u);
  EXPECT_TRUE(VerifyModel(*m).empty());
  EXPECT_NE(StructuralFingerprint(m->graph()), fingerprint);

  Inline(*r.call);
  m->CollectGarbage();
  EXPECT_EQ(StructuralFingerprint(m->graph()), fingerprint);
  EXPECT_EQ(Lines(*m), lines);
  EXPECT_TRUE(VerifyModel(*m).empty());
}

TEST(Outline, RefusesASetThatIsNotConvexNamingThePath) {
  auto m = ParseModel(kBranches);
  ASSERT_TRUE(m);
  // m1 -> u -> e: leaving out u, the path m1 -> u -> e leaves {m1, e} and comes back.
  OutlineResult r = Outline(m->graph(), Producers(m->graph(), {"m1", "e"}), {});
  EXPECT_EQ(r.call, nullptr);
  EXPECT_NE(r.refusal.find("not convex"), std::string::npos) << r.refusal;
  EXPECT_NE(r.refusal.find("node 'Relu'"), std::string::npos) << r.refusal;
  EXPECT_EQ(m->num_functions(), 0u);
}

TEST(Outline, AnIntermediateReadOutsideIsRefusedOrBecomesAnExtraOutput) {
  auto m = ParseModel(kBranches);
  ASSERT_TRUE(m);
  OutlineOptions o;
  o.outputs = {m->graph().FindValue("e")};  // u is read by y's Add too
  OutlineResult r = Outline(m->graph(), Producers(m->graph(), {"m1", "u", "e"}), o);
  EXPECT_NE(r.refusal.find("value 'u'"), std::string::npos) << r.refusal;
  EXPECT_NE(r.refusal.find("outside the set"), std::string::npos) << r.refusal;
  o.allow_extra_outputs = true;
  r = Outline(m->graph(), Producers(m->graph(), {"m1", "u", "e"}), o);
  ASSERT_TRUE(r.refusal.empty()) << r.refusal;
  ASSERT_EQ(r.call->num_outputs(), 2u);
  EXPECT_EQ(r.call->output(0)->name(), "e");
  EXPECT_EQ(r.call->output(1)->name(), "u");
}

TEST(Outline, RefusesEmptySetsForeignNodesAndUnusedResults) {
  auto m = ParseModel(kBranches);
  auto other = ParseModel(kBranches);
  ASSERT_TRUE(m && other);
  EXPECT_NE(Outline(m->graph(), {}, {}).refusal.find("empty"), std::string::npos);
  EXPECT_NE(Outline(m->graph(), {Named(other->graph(), "u")}, {}).refusal.find("is not in graph"), std::string::npos);
  OutlineOptions onnx_domain;
  onnx_domain.domain = "";
  EXPECT_NE(Outline(m->graph(), {Named(m->graph(), "u")}, onnx_domain).refusal.find("custom domain"), std::string::npos);
}

TEST(Outline, GroupsOfTheSameShapeShareOneBodyWithAttributesByReference) {
  auto m = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[4] x) => (float[4] y) <float[1] c1 = {2.0}, float[1] c2 = {3.0}> {
      a1 = Mul (x, c1)
      b1 = LeakyRelu <alpha = 0.1> (a1)
      a2 = Mul (x, c2)
      b2 = LeakyRelu <alpha = 0.2> (a2)
      y = Add (b1, b2)
    })");
  ASSERT_TRUE(m);
  OutlineOptions o;
  o.name = "MulLeaky";
  o.reuse_body = true;
  o.attributes_by_reference = true;
  o.embed_constant_max_bytes = 16;  // the scalars go into the body, by reference too
  OutlineResult r1 = Outline(m->graph(), Producers(m->graph(), {"a1", "b1"}), o);
  OutlineResult r2 = Outline(m->graph(), Producers(m->graph(), {"a2", "b2"}), o);
  ASSERT_TRUE(r1.refusal.empty() && r2.refusal.empty()) << r1.refusal << r2.refusal;
  EXPECT_EQ(r1.function, r2.function);
  EXPECT_EQ(m->num_functions(), 1u);
  EXPECT_EQ(r1.function->name(), "MulLeaky");
  EXPECT_EQ(r1.call->num_inputs(), 1u);  // x; the constant is embedded
  EXPECT_EQ(r1.function->attribute_names(), (std::vector<std::string>{"value_c0", "alpha_1"}));
  ASSERT_NE(r2.call->FindAttribute("alpha_1"), nullptr);
  EXPECT_FLOAT_EQ(*r2.call->FindAttribute("alpha_1")->f, 0.2f);
  EXPECT_TRUE(VerifyModel(*m).empty());
  // Without reuse, a second body of the same shape is a second function with a fresh name.
  auto m2 = ParseModel(kBranches);
  OutlineOptions plain;
  plain.name = "G";
  OutlineResult a = Outline(m2->graph(), Producers(m2->graph(), {"m1"}), plain);
  OutlineResult b = Outline(m2->graph(), Producers(m2->graph(), {"m2"}), plain);
  ASSERT_TRUE(a.refusal.empty() && b.refusal.empty());
  EXPECT_NE(a.function, b.function);
  EXPECT_EQ(b.function->name(), "G_1");
}

TEST(Outline, ConstantsAboveTheLimitAndGraphInputsBecomeInputs) {
  auto m = ParseModel(kBranches);
  ASSERT_TRUE(m);
  OutlineOptions o;
  o.embed_constant_max_bytes = 4;  // eps (4 bytes) goes in, w (16 bytes) does not
  OutlineResult r = Outline(m->graph(), Producers(m->graph(), {"m1", "u", "e"}), o);
  ASSERT_TRUE(r.refusal.empty()) << r.refusal;
  std::vector<std::string> inputs;
  for (const Value* v : r.call->inputs()) inputs.push_back(v->name());
  EXPECT_EQ(inputs, (std::vector<std::string>{"x", "w"}));
  int constants = 0;
  for (const auto& n : r.function->body().nodes()) constants += n->op_type() == "Constant";
  EXPECT_EQ(constants, 1);
}

TEST(Outline, InASubgraphOuterValuesBecomeInputs) {
  auto m = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (bool c, float[2] x) => (float[2] y) {
      k = Neg (x)
      y = If (c) <then_branch = t () => (float[2] a) { p = Mul (k, x) a = Relu (p) },
                  else_branch = e () => (float[2] b) { b = Identity (x) }>
    })");
  ASSERT_TRUE(m);
  Graph& branch = *m->graph().nodes().back()->subgraphs()[0];
  OutlineResult r = Outline(branch, {Named(branch, "p"), Named(branch, "a")}, {});
  ASSERT_TRUE(r.refusal.empty()) << r.refusal;
  EXPECT_EQ(r.call->graph(), &branch);
  EXPECT_EQ(r.call->input(0)->name(), "k");
  EXPECT_EQ(branch.outputs()[0], r.call->output(0));
  EXPECT_TRUE(VerifyModel(*m).empty());
}

TEST(Outline, RollingBackAnOutlineRemovesTheFunction) {
  auto m = ParseModel(kBranches);
  ASSERT_TRUE(m);
  const auto lines = Lines(*m);
  m->journal().Begin();
  OutlineResult r = Outline(m->graph(), Producers(m->graph(), {"m1", "u"}), {});
  ASSERT_TRUE(r.refusal.empty());
  EXPECT_EQ(m->num_functions(), 1u);
  m->journal().Rollback();
  EXPECT_EQ(m->num_functions(), 0u);
  EXPECT_FALSE(m->OpsetVersion("kiln.fused").has_value());
  EXPECT_EQ(Lines(*m), lines);
}

}  // namespace
}  // namespace kiln::testing
