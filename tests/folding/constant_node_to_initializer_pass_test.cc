// ConstantNodeToInitializerPass: golden tests (ONNX text before and after) and graphs it leaves alone.
#include <gtest/gtest.h>

#include "folding_test_util.h"

namespace kiln {
namespace {

using kiln::testing::Canonical;
using kiln::testing::ConstValues;
using kiln::testing::CountOps;
using kiln::testing::Counter;
using kiln::testing::ParseModel;
using kiln::testing::PrintGraph;
using kiln::testing::RunPasses;

constexpr const char* kPass = "ConstantNodeToInitializerPass";

std::string M(const std::string& graph) { return "<ir_version: 8, opset_import: [\"\" : 17]>\n" + graph; }

TEST(ConstantNodeToInitializerPass, MovesConstantNodesIntoInitializers) {
  // Each reader reads the same data from an initializer; value_int and value_floats forms too.
  auto m = ParseModel(M(R"(g (float[2] x, int64[3] i) => (float[2] y, int64[3] j) {
    c = Constant <value = float[2] {1.5, -2}> ()
    f = Constant <value_floats = [3.0, 4.0]> ()
    k = Constant <value_int = 7> ()
    a = Add(x, c)
    y = Mul(a, f)
    j = Add(i, k)
  })"));
  ASSERT_TRUE(m);
  auto run = RunPasses(*m, {kPass});
  EXPECT_TRUE(run.changed());
  EXPECT_EQ(Counter(run, kPass, "constants_moved"), 3);
  EXPECT_EQ(CountOps(*m, "Constant"), 0u);
  EXPECT_EQ(kiln::testing::NodeCount(*m), 3u);
  // Golden: the initializers take fresh names derived from the old ones.
  EXPECT_EQ(PrintGraph(*m), Canonical(M(R"(g (float[2] x, int64[3] i) => (float[2] y, int64[3] j)
      <float[2] c__1 = {1.5, -2}, float[2] f__2 = {3, 4}, int64 k__3 = {7}> {
    a = Add(x, c__1)
    y = Mul(a, f__2)
    j = Add(i, k__3)
  })")));
  std::vector<std::string> consts;
  for (const auto& n : m->graph().nodes()) {
    if (n->is_deleted()) continue;
    for (size_t i = 0; i < n->num_inputs(); ++i)
      if (n->input(i)->initializer()) consts.push_back(n->input(i)->name());
  }
  ASSERT_EQ(consts.size(), 3u);
  EXPECT_EQ(ConstValues<float>(*m, consts[0]), (std::vector<float>{1.5f, -2}));
  EXPECT_EQ(ConstValues<float>(*m, consts[1]), (std::vector<float>{3, 4}));
  EXPECT_EQ(ConstValues<int64_t>(*m, consts[2]), (std::vector<int64_t>{7}));
}

TEST(ConstantNodeToInitializerPass, ChangesNothingWhenTheConstantIsAGraphOutput) {
  // A graph output keeps its name and its node; a graph without Constant nodes.
  const std::string text = M(R"(g (float[2] x) => (float[2] c, float[2] y) {
    c = Constant <value = float[2] {1, 2}> ()
    y = Neg(x)
  })");
  auto m = ParseModel(text);
  ASSERT_TRUE(m);
  EXPECT_FALSE(RunPasses(*m, {kPass}).changed());
  EXPECT_EQ(PrintGraph(*m), Canonical(text));
}

}  // namespace
}  // namespace kiln
