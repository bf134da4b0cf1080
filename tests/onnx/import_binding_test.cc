// How the importer binds node inputs to values (host/onnx/onnx_import.cc): an input a graph already defines is
// bound while the nodes are declared, the rest once every graph is declared. Either way a node reads the value its
// own graph defines under that name, wherever in the graph that definition sits, before an outer scope's; an outer
// value otherwise; and a name nothing defines is an error naming the node.
#include <gtest/gtest.h>
#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>

#include <string>

#include "ir/model.h"
#include "onnx/onnx_import.h"
#include "support/error.h"

namespace kiln {
namespace {

std::unique_ptr<Model> Parse(const char* text) {
  onnx::ModelProto proto;
  onnx::OnnxParser parser(text);
  if (!parser.Parse(proto).IsOK()) return nullptr;
  return ImportModel(std::move(proto), "binding", "");
}

const Node* Producer(const Graph& g, const std::string& value) {
  const Value* v = g.FindValue(value);
  return v ? v->producer() : nullptr;
}

const Node* OnlyNode(const Graph& g, const std::string& op) {
  const Node* found = nullptr;
  for (const auto& n : g.nodes())
    if (n->op_type() == op) found = n.get();
  return found;
}

TEST(ImportBinding, InputsReadTheirOwnGraphsValueWhereverItIsDefinedThenTheOuterOne) {
  // z reads `a` before the node that makes it; the then-branch reads its own `a` (which shadows the outer one)
  // before defining it; the else-branch reads the outer `a`.
  auto m = Parse(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2] x, bool c) => (float[2] y, float[2] z) {
      z = Relu (a)
      a = Neg (x)
      y = If (c) <then_branch = g1 () => (float[2] t) {
        t = Abs (a)
        a = Sigmoid (x)
      }, else_branch = g2 () => (float[2] e) {
        e = Abs (a)
      }>
    })");
  ASSERT_TRUE(m);
  const Graph& g = m->graph();
  const Value* outer_a = g.FindValue("a");
  ASSERT_TRUE(outer_a);
  EXPECT_EQ(Producer(g, "z")->input(0), outer_a);
  EXPECT_EQ(Producer(g, "a")->input(0), g.FindValue("x"));
  const Node* branch = OnlyNode(g, "If");
  ASSERT_TRUE(branch);
  ASSERT_EQ(branch->subgraphs().size(), 2u);
  const Graph& then_g = *branch->subgraphs()[0];
  const Graph& else_g = *branch->subgraphs()[1];
  const Value* inner_a = then_g.FindValue("a");
  ASSERT_TRUE(inner_a);
  EXPECT_NE(inner_a, outer_a);
  EXPECT_EQ(Producer(then_g, "t")->input(0), inner_a) << "the branch's own a, defined after its reader";
  EXPECT_EQ(Producer(then_g, "a")->input(0), g.FindValue("x")) << "an outer value";
  EXPECT_EQ(Producer(else_g, "e")->input(0), outer_a);
  EXPECT_EQ(outer_a->uses().size(), 2u) << "Relu and the else-branch's Abs";
}

TEST(ImportBinding, AnInputNothingDefinesIsAnErrorNamingTheNode) {
  try {
    Parse(R"(<ir_version: 8, opset_import: ["" : 17]>
      g (float[2] x) => (float[2] y) {
        y = Add (x, missing)
      })");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kInvalidModel);
    EXPECT_NE(std::string(e.what()).find("reads 'missing', which no node, graph input or initializer defines"),
              std::string::npos)
        << e.what();
  }
}

// A value listed among a graph's outputs 65,536 times passes the graph's 16-bit count: the model is refused with
// one error naming the file, the graph and the value.
TEST(ImportBinding, AValueListedAsAnOutputTooOftenIsAnErrorNamingTheFile) {
  onnx::ModelProto proto;
  onnx::OnnxParser parser(R"(<ir_version: 8, opset_import: ["" : 17]>
      g (float[2] x) => (float[2] y) {
        y = Relu (x)
      })");
  ASSERT_TRUE(parser.Parse(proto).IsOK());
  const onnx::ValueInfoProto y = proto.graph().output(0);
  for (int i = 0; i < 65535; ++i) *proto.mutable_graph()->add_output() = y;
  try {
    ImportModel(std::move(proto), "many_outputs.onnx", "");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kInvalidModel);
    EXPECT_EQ(std::string(e.what()),
              "many_outputs.onnx: graph 'g' lists value 'y' more than 65535 times among its outputs");
  }
}

}  // namespace
}  // namespace kiln
