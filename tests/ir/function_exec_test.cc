// The reference executor runs calls of model-local functions: attribute references bound per call, nested calls,
// a call inside an If branch, and an outlined graph computes what the original did.
#include <gtest/gtest.h>

#include <cstring>

#include "exec/executor.h"
#include "ir/model.h"
#include "ir/outline.h"
#include "ir_test_models.h"
#include "kernels/kernel_registry.h"
#include "support/error.h"
#include "support/golden.h"

namespace kiln::testing {
namespace {

RtValue Floats(std::vector<float> v) {
  OutputTensor o = AllocateTensor(DataType::kFloat, {static_cast<int64_t>(v.size())});
  std::memcpy(o.data, v.data(), v.size() * sizeof(float));
  return RtValue::Of(o.tensor);
}

std::vector<float> Values(const RtValue& v) {
  auto s = v.tensor->values<float>();
  return {s.begin(), s.end()};
}

class FunctionExec : public ::testing::Test {
 protected:
  void SetUp() override { RegisterBuiltinKernels(kernels_); }
  std::vector<RtValue> Run(const Model& m, std::vector<RtValue> in) { return Executor(m, kernels_).Run(in); }
  KernelRegistry kernels_;
};

TEST_F(FunctionExec, BindsAttributeReferencesPerCall) {
  auto m = ParseModelWithFunctions(kScaleModel, {ScaleFunction()});
  ASSERT_TRUE(m);
  auto out = Run(*m, {Floats({1, 2}), Floats({3, 4})});
  EXPECT_EQ(Values(out[0]), (std::vector<float>{8, 12}));
  m->CallsOf(*m->FindFunction("test", "Scale"))[0]->SetAttribute(Attribute::Float("alpha", -1.0f));
  out = Run(*m, {Floats({1, 2}), Floats({3, 4})});
  EXPECT_EQ(Values(out[0]), (std::vector<float>{0, 0}));
}

TEST_F(FunctionExec, RunsNestedCallsAndCallsInBranches) {
  FunctionText outer{"test", R"(Outer (float[2] p) => (float[2] q) {
    s = test.Scale <alpha = "@gain:f"> (p)
    q = Neg (s)
  })", {"gain"}, {{"", 17}, {"test", 1}}};
  auto m = ParseModelWithFunctions(R"(
    <ir_version: 8, opset_import: ["" : 17, "test" : 1]>
    g (bool c, float[2] x) => (float[2] y) {
      y = If (c) <then_branch = t () => (float[2] a) { a = test.Outer <gain = 3.0> (x) },
                  else_branch = e () => (float[2] b) { b = test.Scale <alpha = 0.5> (x) }>
    })", {ScaleFunction(), outer});
  ASSERT_TRUE(m);
  OutputTensor yes = AllocateTensor(DataType::kBool, {});
  *reinterpret_cast<uint8_t*>(yes.data) = 1;
  auto out = Run(*m, {RtValue::Of(yes.tensor), Floats({1, -2})});
  EXPECT_EQ(Values(out[0]), (std::vector<float>{-3, 6}));
  OutputTensor no = AllocateTensor(DataType::kBool, {});
  *reinterpret_cast<uint8_t*>(no.data) = 0;
  out = Run(*m, {RtValue::Of(no.tensor), Floats({1, -2})});
  EXPECT_EQ(Values(out[0]), (std::vector<float>{0.5f, -1}));
}

TEST_F(FunctionExec, AnOutlinedGraphComputesTheSame) {
  auto m = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[3] x) => (float[3] y) <float[3] w = {1, -2, 3}> {
      a = Mul (x, w)
      b = Neg (a)
      c = Abs (b)
      y = Sub (c, x)
    })");
  ASSERT_TRUE(m);
  auto before = Run(*m, {Floats({1, 2, 3})});
  OutlineResult r = Outline(m->graph(), {m->graph().FindValue("a")->producer(), m->graph().FindValue("b")->producer(),
                                         m->graph().FindValue("c")->producer()}, {});
  ASSERT_TRUE(r.refusal.empty()) << r.refusal;
  auto after = Run(*m, {Floats({1, 2, 3})});
  EXPECT_EQ(Values(after[0]), Values(before[0]));
}

TEST_F(FunctionExec, RecursionStopsWithAnError) {
  FunctionText loop{"test", R"(Loopy (float[2] p) => (float[2] q) { q = test.Loopy (p) })", {}, {{"", 17}, {"test", 1}}};
  auto m = ParseModelWithFunctions(R"(
    <ir_version: 8, opset_import: ["" : 17, "test" : 1]>
    g (float[2] x) => (float[2] y) { y = test.Loopy (x) })", {loop});
  ASSERT_TRUE(m);
  try {
    Run(*m, {Floats({1, 2})});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("recursive"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kiln::testing
