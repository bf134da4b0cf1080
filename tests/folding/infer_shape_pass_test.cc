// InferShapePass: ONNX inference with data propagation, copied back onto the IR without losing information.
#include <gtest/gtest.h>

#include "folding_test_util.h"

namespace kiln::testing {
namespace {

constexpr const char* kHeader = R"(<ir_version: 8, opset_import: ["" : 17]>)";

TEST(InferShapePassTest, InfersSymbolicShapesThroughTheGraph) {
  auto m = ParseModel(std::string(kHeader) + R"(
    g (float[N,3] x) => (float y) {
      r = Relu (x)
      t = Transpose <perm = [1, 0]> (r)
      y = ReduceSum <keepdims = 0> (t)
    })");
  ASSERT_TRUE(m);
  RunPasses(*m, {"InferShapePass"});
  Value* t = m->graph().FindValue("t");
  ASSERT_TRUE(t);
  ASSERT_TRUE(t->type().shape);
  EXPECT_EQ(t->type().shape->ToString(), "[3,N]");
  EXPECT_EQ(t->type().elem, DataType::kFloat);
}

TEST(InferShapePassTest, DataPropagationGivesReshapeItsStaticShape) {
  auto m = ParseModel(std::string(kHeader) + R"(
    g (float[2,3,4] x) => (float[?,?] y) {
      s = Shape (x)
      i = Constant <value = int64[1] {0}> ()
      d = Gather (s, i)
      m1 = Constant <value = int64[1] {-1}> ()
      c = Concat <axis = 0> (d, m1)
      y = Reshape (x, c)
    })");
  ASSERT_TRUE(m);
  RunPasses(*m, {"InferShapePass"});
  Value* y = m->graph().FindValue("y");
  ASSERT_TRUE(y && y->type().shape);
  EXPECT_EQ(y->type().shape->ToString(), "[2,12]");
}

TEST(InferShapePassTest, KeepsWhatTheModelAlreadyKnew) {
  // The declared output keeps its symbol; an unknown op does not stop inference of the rest.
  auto m = ParseModel(R"(<ir_version: 8, opset_import: ["" : 17, "custom.x" : 1]>
    g (float[B,4] x) => (float[B,4] y, float[?] z) {
      y = Relu (x)
      u = custom.x.Mystery (x)
      z = Relu (u)
    })");
  ASSERT_TRUE(m);
  RunPasses(*m, {"InferShapePass"});
  EXPECT_EQ(m->graph().FindValue("y")->type().shape->ToString(), "[B,4]");
}

TEST(InferShapePassTest, ChangesNothingWhenTypesAreComplete) {
  auto m = ParseModel(std::string(kHeader) + R"(
    g (float[2] x) => (float[2] y) {
      y = Relu (x)
    })");
  ASSERT_TRUE(m);
  PassRun run = RunPasses(*m, {"InferShapePass"});
  EXPECT_FALSE(run.changed());
}

}  // namespace
}  // namespace kiln::testing
