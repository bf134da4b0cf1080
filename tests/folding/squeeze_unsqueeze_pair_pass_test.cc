// SqueezeUnsqueezePairPass: golden tests (ONNX text before and after) and graphs it leaves alone.
#include <gtest/gtest.h>

#include "folding_test_util.h"

namespace kiln {
namespace {

using kiln::testing::Canonical;
using kiln::testing::Counter;
using kiln::testing::ParseModel;
using kiln::testing::PrintGraph;
using kiln::testing::RunPasses;

constexpr const char* kPass = "SqueezeUnsqueezePairPass";

std::string M(const std::string& graph, int opset = 17) {
  return "<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + "]>\n" + graph;
}

TEST(SqueezeUnsqueezePairPass, UnsqueezeThenSqueezeCancel) {
  // Negative axes normalise against the Unsqueeze's output rank (4: [1,2,1,3]): -2 is 2.
  auto m = ParseModel(M(R"(g (float[2,3] x) => (float[2,3] y) {
    a = Constant <value = int64[2] {0, 2}> ()
    u = Unsqueeze(x, a)
    b = Constant <value = int64[2] {-2, 0}> ()
    s = Squeeze(u, b)
    y = Relu(s)
  })"));
  ASSERT_TRUE(m);
  auto run = RunPasses(*m, {kPass});
  EXPECT_TRUE(run.changed());
  EXPECT_EQ(Counter(run, kPass, "pairs_removed"), 1);
  EXPECT_EQ(PrintGraph(*m), Canonical(M(R"(g (float[2,3] x) => (float[2,3] y) {
    y = Relu(x)
  })")));
}

TEST(SqueezeUnsqueezePairPass, SqueezeThenUnsqueezeCancel) {
  auto m = ParseModel(M(R"(g (float[2,1,3] x) => (float[2,1,3] y) {
    s = Squeeze <axes = [1]> (x)
    u = Unsqueeze <axes = [1]> (s)
    y = Relu(u)
  })",
                        11));
  ASSERT_TRUE(m);
  EXPECT_TRUE(RunPasses(*m, {kPass}).changed());
  EXPECT_EQ(PrintGraph(*m), Canonical(M(R"(g (float[2,1,3] x) => (float[2,1,3] y) {
    y = Relu(x)
  })",
                                          11)));
}

TEST(SqueezeUnsqueezePairPass, ChangesNothingWhenTheAxesDiffer) {
  // Different axes; a Squeeze without axes; a pair whose result is a graph output.
  const std::string text = M(R"(g (float[2,1,3] x) => (float[1,2,3] y, z, w) {
    a = Constant <value = int64[1] {1}> ()
    b = Constant <value = int64[1] {0}> ()
    s = Squeeze(x, a)
    y = Unsqueeze(s, b)
    u = Unsqueeze(x, b)
    v = Squeeze(u)
    z = Relu(v)
    w = Unsqueeze(s, a)
  })");
  auto m = ParseModel(text);
  ASSERT_TRUE(m);
  EXPECT_FALSE(RunPasses(*m, {kPass}).changed());
  EXPECT_EQ(PrintGraph(*m), Canonical(text));
}

}  // namespace
}  // namespace kiln
