// Model-local functions in the IR: lossless import and export (nested calls, attribute references, fields this
// ONNX does not know), calls resolving to their function, separate naming scopes, deep copies, the verifier's
// checks of calls, and annotations surviving export.
#include <gtest/gtest.h>
#include <google/protobuf/util/message_differencer.h>
#include <onnx/onnx_pb.h>

#include <algorithm>

#include "ir/graph_copy.h"
#include "ir/model.h"
#include "ir_test_models.h"
#include "onnx/onnx_export.h"
#include "onnx/onnx_import.h"
#include "support/golden.h"
#include "verify/verifier.h"

namespace kiln::testing {
namespace {

using google::protobuf::util::MessageDifferencer;

bool HasIssue(const Model& m, const std::string& text) {
  for (const VerifyIssue& i : VerifyModel(m))
    if ((i.where + ": " + i.message).find(text) != std::string::npos) return true;
  return false;
}

TEST(Functions, ImportAndExportAreLossless) {
  // Nested calls (Outer calls Scale), a reference, a subgraph in a body, and an unknown field (IR 10's overload).
  FunctionText outer{"test", R"(Outer (float[2] p) => (float[2] q) {
    s = test.Scale <alpha = "@gain:f"> (p)
    c = Constant <value = bool {1}> ()
    q = If (c) <then_branch = g1 () => (float[2] t) { t = Identity (s) },
                else_branch = g2 () => (float[2] e) { e = Neg (s) }>
  })", {"gain"}, {{"", 17}, {"test", 1}}};
  onnx::ModelProto proto = ModelProtoWithFunctions(kScaleModel, {ScaleFunction(), outer});
  std::string with_unknown = proto.functions(1).SerializeAsString() + std::string("\x6a\x03ovl", 5);
  ASSERT_TRUE(proto.mutable_functions(1)->ParseFromString(with_unknown));
  std::string bytes = proto.SerializeAsString();
  auto m = LoadModelFromBytes(bytes, "functions.onnx", "");
  ASSERT_EQ(m->num_functions(), 2u);
  const Function* f = m->FindFunction("test", "Outer");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->attribute_names(), std::vector<std::string>{"gain"});
  EXPECT_EQ(f->body().inputs().size(), 1u);
  EXPECT_EQ(f->body().num_nodes(), 3u);
  EXPECT_FALSE(f->unknown_fields.empty());
  onnx::ModelProto back = ExportModelProto(*m);
  EXPECT_TRUE(MessageDifferencer::Equivalent(back.functions(0), proto.functions(0)));
  onnx::FunctionProto outer_in;
  ASSERT_TRUE(outer_in.ParseFromString(with_unknown));
  EXPECT_TRUE(MessageDifferencer::Equivalent(back.functions(1), outer_in));
  // The unknown field comes back byte for byte, at the end.
  std::string written = back.functions(1).SerializeAsString();
  EXPECT_EQ(written.substr(written.size() - 5), std::string("\x6a\x03ovl", 5));
  EXPECT_TRUE(VerifyModel(*m).empty());
}

TEST(Functions, CallsResolveAndAreCounted) {
  auto m = ParseModelWithFunctions(kScaleModel, {ScaleFunction()});
  ASSERT_TRUE(m);
  Function* f = m->FindFunction("test", "Scale");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(m->FindFunction("ai.onnx", "Scale"), nullptr);
  std::vector<Node*> calls = m->CallsOf(*f);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(m->CalledFunction(*calls[0]), f);
  const Attribute* k = f->body().nodes().front()->FindAttribute("value_float");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->ref_attr_name, "alpha");
  const Attribute* bound = BoundAttribute(*f, *calls[0], *k);
  ASSERT_NE(bound, nullptr);
  EXPECT_FLOAT_EQ(*bound->f, 2.0f);
}

TEST(Functions, BodiesHaveTheirOwnNamingScope) {
  auto m = ParseModelWithFunctions(kScaleModel, {ScaleFunction()});
  ASSERT_TRUE(m);
  Function* f = m->FindFunction("test", "Scale");
  // "a" is a value of the main graph, not of the body: both may hold it.
  EXPECT_TRUE(m->graph().names().Contains("a"));
  EXPECT_FALSE(f->body().names().Contains("a"));
  EXPECT_EQ(f->body().FreshName("a"), "a");
  EXPECT_TRUE(f->body().names().Contains("v"));
  EXPECT_NE(f->body().FreshName("v"), "v");
}

TEST(Functions, VerifierChecksCalls) {
  auto m = ParseModelWithFunctions(kScaleModel, {ScaleFunction()});
  ASSERT_TRUE(m);
  EXPECT_TRUE(VerifyModel(*m).empty());
  Node* call = m->CallsOf(*m->FindFunction("test", "Scale"))[0];
  call->SetAttribute(Attribute::Int("beta", 1));
  EXPECT_TRUE(HasIssue(*m, "sets attribute 'beta', which function 'Scale' does not declare"));
  call->RemoveAttribute("beta");
  call->RemoveAttribute("alpha");  // Constant's value then has nothing to take
  EXPECT_TRUE(HasIssue(*m, "omits attribute 'alpha'"));
  call->SetAttribute(Attribute::Float("alpha", 2.0f));
  call->AppendInput(m->graph().FindValue("x"));
  EXPECT_TRUE(HasIssue(*m, "has 2 inputs; function 'Scale' takes 1"));
  call->ResizeInputs(1);
  m->opset_imports.erase(std::remove_if(m->opset_imports.begin(), m->opset_imports.end(),
                                        [](const OpsetImport& o) { return o.domain == "test"; }),
                         m->opset_imports.end());
  EXPECT_TRUE(HasIssue(*m, "domain 'test' has no opset import"));
  m->EnsureOpset("test", 1);
  m->FindFunction("test", "Scale")->SetOpsetImports({});
  EXPECT_TRUE(HasIssue(*m, "in the function's opset_import"));
  m->FindFunction("test", "Scale")->SetOpsetImports({{"", 17}});
  EXPECT_TRUE(VerifyModel(*m).empty());
}

TEST(Functions, VerifierRefusesRecursion) {
  FunctionText loop{"test", R"(Loopy (float[2] p) => (float[2] q) { q = test.Loopy (p) })", {}, {{"", 17}, {"test", 1}}};
  auto m = ParseModelWithFunctions(kScaleModel, {ScaleFunction(), loop});
  ASSERT_TRUE(m);
  EXPECT_TRUE(HasIssue(*m, "recursion"));
}

TEST(Functions, AnnotationsSurviveExportAndImport) {
  auto m = ParseModelWithFunctions(kScaleModel, {ScaleFunction()});
  ASSERT_TRUE(m);
  Node* add = nullptr;
  for (const auto& n : m->graph().nodes())
    if (n->op_type() == "Add") add = n.get();
  ASSERT_NE(add, nullptr);
  add->SetName("the_add");
  add->SetAnnotation("kiln.engine", "vector");
  add->SetAnnotation("__kiln_scratch", "never written");
  m->graph().FindValue("a")->SetAnnotation("kiln.memory", "on_chip");
  std::string bytes = ExportModelProto(*m).SerializeAsString();
  onnx::ModelProto p;
  ASSERT_TRUE(p.ParseFromString(bytes));
  ASSERT_EQ(p.metadata_props_size(), 1);
  EXPECT_EQ(p.metadata_props(0).key(), "kiln.annotations");
  EXPECT_EQ(p.metadata_props(0).value(),
            R"({"nodes":{"the_add":{"kiln.engine":"vector"}},"values":{"a":{"kiln.memory":"on_chip"}}})");
  auto back = LoadModelFromBytes(bytes, "annotated.onnx", "");
  EXPECT_TRUE(back->metadata_props.empty());
  EXPECT_EQ(back->graph().FindValue("a")->annotations().at("kiln.memory"), "on_chip");
  EXPECT_EQ(ExportModelProto(*back).SerializeAsString(), bytes);
}

TEST(Functions, CopyGraphCopiesSubgraphsAndSharesTensorData) {
  auto m = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (bool c, float[2] x) => (float[2] y) {
      y = If (c) <then_branch = t () => (float[2] a) { one = Constant <value = float[2] {1, 1}> () a = Add (x, one) },
                  else_branch = e () => (float[2] b) { b = Neg (x) }>
    })");
  ASSERT_TRUE(m);
  Node* if_node = m->graph().nodes().front().get();
  Node* copy = m->graph().AddNode("If", {m->graph().FindValue("c")}, 1, "if_copy");
  for (const Attribute& a : if_node->attributes()) copy->SetAttribute(CopyAttribute(a, copy, {}));
  ASSERT_EQ(copy->subgraphs().size(), 2u);
  const Graph* then_copy = copy->subgraphs()[0];
  EXPECT_EQ(then_copy->parent(), &m->graph());
  EXPECT_EQ(then_copy->owner_node(), copy);
  EXPECT_NE(then_copy, if_node->subgraphs()[0]);
  // The copy reads the outer x itself; its own values got fresh names (the originals still hold theirs).
  const Node* add = then_copy->nodes().back().get();
  EXPECT_EQ(add->input(0), m->graph().FindValue("x"));
  EXPECT_NE(then_copy->outputs()[0]->name(), "a");
  m->graph().AppendOutput(copy->output(0));
  EXPECT_TRUE(VerifyModel(*m).empty());
}

}  // namespace
}  // namespace kiln::testing
