// Native shape inference (host/shape): ONNX's inference functions through the IR's context, shape values with
// symbolic expressions through exporters' shape chains, subgraphs and calls, incremental re-inference, and the
// checks that keep hostile nodes away from libonnx's inference functions.
#include "shape/shape_inference.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "ir/model.h"
#include "shape/node_checks.h"
#include "shape/shape_values.h"
#include "support/error.h"
#include "support/golden.h"

namespace kiln::testing {
namespace {

std::string ShapeOf(const Model& m, const char* value) {
  const Value* v = m.graph().FindValue(value);
  if (v == nullptr) return "(no value)";
  return v->type().shape ? v->type().shape->ToString() : "(no shape)";
}

// Expects CheckModelForInference to refuse `m` as an invalid model, with a message holding each of `parts`;
// `what` names the case in a failure.
void ExpectRefused(const Model& m, std::initializer_list<std::string> parts, const std::string& what = "") {
  try {
    CheckModelForInference(m);
    ADD_FAILURE() << "no error" << (what.empty() ? "" : " for " + what);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kInvalidModel);
    for (const std::string& part : parts) EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(ShapeInference, InferredShapesScopeLeavesTheModelAsItCame) {
  const std::string text = R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[N,4] x) => (y) {
      a = Relu(x)
      y = Transpose <perm = [1, 0]> (a)
    })";
  auto m = ParseModel(text);
  ASSERT_TRUE(m);
  const std::string before = PrintGraph(*m);
  {
    InferredShapesScope typed(*m);
    EXPECT_EQ(ShapeOf(*m, "y"), "[4,N]");
    EXPECT_THROW(InferredShapesScope again(*m), Error);  // the model's journal is taken
  }
  EXPECT_EQ(PrintGraph(*m), before);
  EXPECT_EQ(ShapeOf(*m, "y"), "(no shape)");
  EXPECT_FALSE(m->journal().active());
  InferShapes(*m);  // and inference after it gives the types again
  EXPECT_EQ(ShapeOf(*m, "y"), "[4,N]");
}

TEST(ShapeInference, SymbolicShapeChainsGiveReshapeItsDims) {
  // view(batch, seq, heads, head_dim) as PyTorch writes it, with batch and seq symbolic.
  auto m = ParseModel(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[batch,seq,768] x) => (float[?,?,?,?] y) {
      s = Shape (x)
      i0 = Constant <value = int64 {0}> ()
      i1 = Constant <value = int64 {1}> ()
      d0 = Gather <axis = 0> (s, i0)
      d1 = Gather <axis = 0> (s, i1)
      a0 = Constant <value = int64[1] {0}> ()
      u0 = Unsqueeze (d0, a0)
      u1 = Unsqueeze (d1, a0)
      tail = Constant <value = int64[2] {12, 64}> ()
      c = Concat <axis = 0> (u0, u1, tail)
      y = Reshape (x, c)
    })");
  ASSERT_TRUE(m);
  EXPECT_GT(InferShapes(*m), 0u);
  EXPECT_EQ(ShapeOf(*m, "y"), "[batch,seq,12,64]");
  auto data = m->graph().FindValue("c")->shape_data();
  ASSERT_TRUE(data);
  EXPECT_EQ(data->elems.size(), 4u);
  EXPECT_EQ(data->elems[1]->ToString(), "seq");
}

TEST(ShapeInference, ArithmeticOnShapesGivesExpressions) {
  auto m = ParseModel(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[batch,seq,768] x, float[batch,seq,768] z) => (float[?,?] y, float[?,?,?] w, float[?,?,?] e)
      <int64 i0 = {0}, int64 i1 = {1}, int64[1] zero = {0}, int64[1] two = {2}, int64[1] one = {1}> {
      s = Shape (x)
      d0 = Gather <axis = 0> (s, i0)
      d1 = Gather <axis = 0> (s, i1)
      bs = Mul (d0, d1)
      a0 = Constant <value = int64[1] {0}> ()
      u = Unsqueeze (bs, a0)
      last = Constant <value = int64[1] {-1}> ()
      c = Concat <axis = 0> (u, last)
      y = Reshape (x, c)
      w = Concat <axis = 1> (x, z)
      back = Slice (s, zero, two)
      eshape = Concat <axis = 0> (back, one)
      e = Expand (x, eshape)
    })");
  ASSERT_TRUE(m);
  InferShapes(*m);
  EXPECT_EQ(ShapeOf(*m, "y"), "[batch*seq,768]");
  EXPECT_EQ(ShapeOf(*m, "w"), "[batch,2*seq,768]");
  EXPECT_EQ(ShapeOf(*m, "e"), "[batch,seq,768]");
}

TEST(ShapeInference, MinusOneAndZeroInAReshapeTarget) {
  auto m = ParseModel(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[b,s,12,64] x) => (float[?,?,?] y) {
      t = Constant <value = int64[3] {0, 0, -1}> ()
      y = Reshape (x, t)
    })");
  ASSERT_TRUE(m);
  InferShapes(*m);
  EXPECT_EQ(ShapeOf(*m, "y"), "[b,s,768]");
}

TEST(ShapeInference, ShapeChainsInsideIfBranchesAreInferred) {
  auto m = ParseModel(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (bool c, float[batch,16] x) => (float[?,?] y) {
      y = If (c) <then_branch = t () => (float[?,?] ty) {
        s = Shape (x)
        i = Constant <value = int64[1] {0}> ()
        d = Gather <axis = 0> (s, i)
        k = Constant <value = int64[1] {4}> ()
        m4 = Constant <value = int64[1] {-1}> ()
        shape = Concat <axis = 0> (d, k, m4)
        r = Reshape (x, shape)
        ty = ReduceSum <keepdims = 0, axes = [2]> (r)
      }, else_branch = e () => (float[?,?] ey) {
        ey = Identity (x)
      }>
    })");
  ASSERT_TRUE(m);
  InferShapes(*m);
  const Node* holder = m->graph().nodes().front().get();
  const Graph* then_branch = holder->subgraphs()[0];
  const Value* r = then_branch->FindValue("r");
  ASSERT_TRUE(r && r->type().shape);
  EXPECT_EQ(r->type().shape->ToString(), "[batch,4,4]");
}

TEST(ShapeInference, OnlyWhatChangedIsInferredAgain) {
  auto m = ParseModel(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[N,3] x) => (float[?,?] y) {
      a = Relu (x)
      t = Transpose <perm = [1, 0]> (a)
      b = Sigmoid (t)
      y = Neg (b)
    })");
  ASSERT_TRUE(m);
  size_t inferred = 0;
  InferShapes(*m, &inferred);
  EXPECT_EQ(inferred, 4u);
  EXPECT_EQ(ShapeOf(*m, "y"), "[3,N]");
  InferShapes(*m, &inferred);
  EXPECT_EQ(inferred, 0u);
  // Changing the Transpose re-infers it; its output's type does not change, so no reader is.
  Node* t = m->graph().FindValue("t")->producer();
  t->SetAttribute(Attribute::Ints("perm", {1, 0}));
  InferShapes(*m, &inferred);
  EXPECT_EQ(inferred, 1u);
  // A node whose output type was forgotten is inferred again, and readers of what changes too.
  Value* a = m->graph().FindValue("a");
  a->SetType(Type{});
  a->producer()->MarkShapeDirty();
  InferShapes(*m, &inferred);
  EXPECT_EQ(inferred, 2u);  // Relu, and the Transpose reading a's new type; b and y read nothing new
  EXPECT_EQ(ShapeOf(*m, "a"), "[N,3]");
}

TEST(ShapeInference, ARollbackMakesEverythingInferAgain) {
  auto m = ParseModel(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3] x) => (float[?,?] y) {
      a = Relu (x)
      y = Neg (a)
    })");
  ASSERT_TRUE(m);
  m->journal().Begin();
  InferShapes(*m);
  EXPECT_EQ(ShapeOf(*m, "a"), "[2,3]");
  m->journal().Rollback();
  EXPECT_EQ(ShapeOf(*m, "a"), "(no shape)");
  size_t inferred = 0;
  InferShapes(*m, &inferred);
  EXPECT_EQ(inferred, 2u);
  EXPECT_EQ(ShapeOf(*m, "a"), "[2,3]");
}

TEST(ShapeInference, HostileConvolutionAttributesAreRefusedNotCrashedOn) {
  // libonnx 1.12's Conv inference indexes pads and strides by the input's spatial axes without checking.
  for (const char* attrs : {"kernel_shape = [3], pads = [1, 1, 1, 1]", "pads = [1]", "strides = [0, 1]",
                            "dilations = [1, 1, 1]", "kernel_shape = [3, 3], group = 0"}) {
    auto m = ParseModel(std::string(R"(<ir_version: 8, opset_import: ["" : 17]>
      g (float[1,3,8,8] x, float[4,3,3,3] w) => (float[?,?,?,?] y) {
        y = Conv <)") + attrs + R"(> (x, w)
      })");
    ASSERT_TRUE(m) << attrs;
    InferShapes(*m);  // must not crash; the node's output stays as it was
    EXPECT_EQ(ShapeOf(*m, "y"), "[?,?,?,?]") << attrs;
    ExpectRefused(*m, {"node '' (Conv)"}, attrs);
  }
}

// Found by the compile_diff fuzzer: libonnx 1.12's LayerNormalization inference indexed the dims with an axis of
// -32772 (SEGV). An axis outside the spec's range is an invalid model; the ends of each range are accepted.
TEST(ShapeInference, AnAxisOutsideItsRangeIsRefusedNotCrashedOn) {
  auto model = [](const std::string& op, int64_t axis) {
    return ParseModel(R"(<ir_version: 8, opset_import: ["" : 17]>
      g (float[2,3,4,5] x, float[4,5] w) => (float[?,?,?,?] y, float[?,?,?,?] m) {
        y, m = )" + op + " <axis = " + std::to_string(axis) + "> (x, w)\n      }");
  };
  struct Case {
    const char* op;
    int64_t bad, low, high;
  };
  for (const Case& c : {Case{"LayerNormalization", -32772, -4, 4}, Case{"LayerNormalization", 5, -4, 4}}) {
    auto bad = model(c.op, c.bad);
    ASSERT_TRUE(bad);
    InferShapes(*bad);  // must not crash
    ExpectRefused(*bad, {"axis must be in [-4, 4]"}, "axis " + std::to_string(c.bad));
    for (int64_t ok : {c.low, c.high}) {
      auto m = model(c.op, ok);
      ASSERT_TRUE(m);
      EXPECT_NO_THROW(CheckModelForInference(*m)) << ok;
    }
  }
  for (int64_t axis : {-5, 4}) {  // Softmax's range stops at r-1
    auto m = ParseModel(R"(<ir_version: 8, opset_import: ["" : 17]>
      g (float[2,3,4,5] x) => (float[?,?,?,?] y) {
        y = Softmax <axis = )" + std::to_string(axis) + R"(> (x)
      })");
    ASSERT_TRUE(m);
    EXPECT_THROW(CheckModelForInference(*m), Error) << axis;
  }
}

// Found by a sweep of hostile attributes and ranks over every ONNX op: libonnx 1.12's inference crashed on a
// negative GatherND batch_dims and on an STFT signal of rank 1.
TEST(ShapeInference, GatherNDBatchDimsAndSTFTRankAreCheckedFirst) {
  struct Case {
    const char* text;
    const char* message;
  };
  for (const Case& c : {
           Case{"y = GatherND <batch_dims = -5> (d, i)", "batch_dims is -5; it must not be negative"},
           Case{"y = GatherND <batch_dims = 2> (d, i)", "must be less than both inputs' ranks (3 and 2)"},
           Case{"y = STFT (s, step)", "input 0 has rank 1; STFT needs rank 3"},
       }) {
    auto m = ParseModel(std::string(R"(<ir_version: 8, opset_import: ["" : 17]>
      g (float[2,3,4] d, int64[2,1] i, float[16] s, int64 step) => (float[?] y) {
        )") + c.text + R"(
      })");
    ASSERT_TRUE(m) << c.text;
    InferShapes(*m);  // must not crash
    ExpectRefused(*m, {c.message}, c.text);
  }
  auto ok = ParseModel(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3,4] d, int64[2,1] i) => (float[?] y) {
      y = GatherND <batch_dims = 1> (d, i)
    })");
  ASSERT_TRUE(ok);
  EXPECT_NO_THROW(CheckModelForInference(*ok));
}

TEST(ShapeInference, SchemaViolationsAreNamed) {
  auto m = ParseModel(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3] x) => (float[?,?] y) {
      y = Transpose <perm = [1, 0], colour = 3> (x)
    })");
  ASSERT_TRUE(m);
  try {
    CheckModelForInference(*m);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("colour"), std::string::npos) << e.what();
  }
}

// Found by shape_fuzz (seed 8): ONNX's LayerNormalization inference reads a tensor element type from a sequence.
TEST(ShapeInference, AnInputOutsideItsTypeConstraintIsRefusedNotCrashedOn) {
  auto m = ParseModel(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[N] x, float[M] s) => (float[N] y) {
      y = LayerNormalization (x, s)
    })");
  ASSERT_TRUE(m);
  for (const char* name : {"x", "s"}) {  // the text parser of libonnx 1.12 has no sequence types
    Value* v = m->graph().FindValue(name);
    Type seq;
    seq.kind = Type::Kind::kSequence;
    seq.inner = std::make_shared<const Type>(v->type());
    v->SetType(seq);
  }
  InferShapes(*m);  // must not crash
  ExpectRefused(*m, {"input 0 ('x') has type seq(tensor(float))", "type constraint T"});
}

// The same for a tensor of an element type outside the constraint, named from its element type alone (looked up
// once per element type): twice, so that the second check takes the looked-up name; a tensor inside the
// constraint passes.
TEST(ShapeInference, ATensorOfAnElementTypeOutsideItsConstraintIsRefused) {
  for (int round = 0; round < 2; ++round) {
    auto m = ParseModel(R"(<ir_version: 8, opset_import: ["" : 17]>
      g (int32[N, 4] x, float[4] s) => (float[N, 4] y) {
        y = LayerNormalization (x, s)
      })");
    ASSERT_TRUE(m);
    ExpectRefused(*m, {"input 0 ('x') has type tensor(int32)"});
  }
  auto ok = ParseModel(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[N, 4] x, float[4] s) => (float[N, 4] y) {
      y = LayerNormalization (x, s)
    })");
  ASSERT_TRUE(ok);
  EXPECT_NO_THROW(CheckModelForInference(*ok));
}

// Found by shape_fuzz (seed 7): ONNX's Loop inference writes one output per loop-carried value without checking
// that the node has that many outputs.
TEST(ShapeInference, ALoopWithTooFewOutputsIsNotCrashedOn) {
  auto m = ParseModel(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (int64 trip, bool cond, float[2] a, float[2] b) => (float[2] y) {
      y = Loop (trip, cond, a, b) <body = body_graph (int64 i, bool c, float[2] a_in, float[2] b_in) => (bool c_out, float[2] a_out, float[2] b_out) {
        c_out = Identity (c)
        a_out = Identity (a_in)
        b_out = Identity (b_in)
      }>
    })");
  ASSERT_TRUE(m);
  InferShapes(*m);  // must not crash: the missing output's type goes nowhere
  EXPECT_EQ(ShapeOf(*m, "y"), "[2]");
}

}  // namespace
}  // namespace kiln::testing
