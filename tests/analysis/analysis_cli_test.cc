// The analysis slots through a real .so boundary: the `kiln` binary loads the analysis test plugin
// (tests/plugins/plugins/analysis_plugin.cc), whose AnalysisProbePass asks every analysis slot about a known model
// and reports the answers as pass counters; the compile report must hold the values worked out by hand below. The
// pass declares the dominators preserved (kPreservedAnalyses), and its change after the queries shows the kept
// tree next to recomputed ones.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/run_kiln.h"
#include "onnx/onnx_export.h"
#include "support/golden.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

// Topological order: a0 b1 c2 d3 s4 cnd5 i6 t7 y8. i reads b in its then-branch and c in its else-branch.
const char* kModel = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y) <float[1] zero = {0.0}> {
  a = Relu(x)
  b = Neg(a)
  c = Exp(a)
  d = Add(b, c)
  s = ReduceMax <keepdims = 0> (d)
  cnd = Greater(s, zero)
  i = If(cnd) <then_branch = tb () => (float[2] ty) { u = Neg(b) ty = Abs(u) },
               else_branch = eb () => (float[2] ey) { ey = Sigmoid(c) }>
  t = Tanh(d)
  y = Mul(i, t)
})";

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A mask of topological indices.
int64_t Bits(std::initializer_list<int> indices) {
  int64_t m = 0;
  for (int i : indices) m |= int64_t{1} << i;
  return m;
}

class AnalysisCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::TempDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    auto m = testing::ParseModel(kModel);
    ASSERT_TRUE(m);
    WriteModel(*m, (dir_ / "model.onnx").string());
    std::ofstream(dir_ / "pipeline.yaml") << "level: O0\nstages:\n  - name: Prepare\n    passes: [AnalysisProbePass]\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
};

TEST_F(AnalysisCli, ThePluginsQueriesGetTheHandWorkedAnswers) {
  const std::string plugin = std::string(KILN_TEST_PLUGIN_DIR) + "/libkiln_test_plugin_analysis.so";
  auto r = testing::RunKiln("compile " + (dir_ / "model.onnx").string() + " -o " + (dir_ / "out.onnx").string() +
                            " --pipeline " + (dir_ / "pipeline.yaml").string() + " --plugin " + plugin + " --report " +
                            (dir_ / "report.json").string());
  ASSERT_EQ(r.rc, 0) << r.output;
  nlohmann::json report = nlohmann::json::parse(ReadFile(dir_ / "report.json"));
  nlohmann::json pass;
  for (const auto& stage : report["stages"])
    for (const auto& p : stage["passes"])
      if (p["name"] == "AnalysisProbePass") pass = p;
  ASSERT_TRUE(pass.is_object()) << report.dump(1);
  EXPECT_EQ(pass["failures"], 0);
  const nlohmann::json& counters = pass["counters"];
  auto expect = [&](const std::string& name, int64_t value) {
    ASSERT_TRUE(counters.contains(name)) << name << " missing from " << counters.dump(1);
    EXPECT_EQ(counters[name].get<int64_t>(), value) << name;
  };

  expect("topo.count", 9);
  expect("topo.same_as_nodes", 1);
  expect("null.reads_nothing", 1);
  const std::vector<std::string> names = {"a", "b", "c", "d", "s", "cnd", "i", "t", "y"};
  for (size_t k = 0; k < names.size(); ++k) expect("index." + names[k], static_cast<int64_t>(k));

  // Immediate dominators (entry: -1). a reads the graph input; cnd reads s and an initializer; i reads cnd, and b
  // and c inside its branches.
  const std::vector<int64_t> idom = {-1, 0, 0, 0, 3, 4, 0, 3, 0};
  // Immediate post-dominators (exit: -1): y is the only output.
  const std::vector<int64_t> ipostdom = {8, 8, 8, 8, 5, 6, 8, 8, -1};
  for (size_t k = 0; k < names.size(); ++k) {
    expect("idom." + names[k], idom[k]);
    expect("ipostdom." + names[k], ipostdom[k]);
  }

  const std::vector<int64_t> dominates = {Bits({0, 1, 2, 3, 4, 5, 6, 7, 8}), Bits({1}), Bits({2}), Bits({3, 4, 5, 7}),
                                          Bits({4, 5}), Bits({5}), Bits({6}), Bits({7}), Bits({8})};
  const std::vector<int64_t> postdominates = {Bits({0}), Bits({1}), Bits({2}), Bits({3}), Bits({4}), Bits({4, 5}),
                                              Bits({4, 5, 6}), Bits({7}), Bits({0, 1, 2, 3, 4, 5, 6, 7, 8})};
  const std::vector<int64_t> reaches = {Bits({0, 1, 2, 3, 4, 5, 6, 7, 8}), Bits({1, 3, 4, 5, 6, 7, 8}),
                                        Bits({2, 3, 4, 5, 6, 7, 8}),       Bits({3, 4, 5, 6, 7, 8}),
                                        Bits({4, 5, 6, 8}),                Bits({5, 6, 8}),
                                        Bits({6, 8}),                      Bits({7, 8}),
                                        Bits({8})};
  for (size_t k = 0; k < names.size(); ++k) {
    expect("dominates." + names[k], dominates[k]);
    expect("postdominates." + names[k], postdominates[k]);
    expect("reaches." + names[k], reaches[k]);
  }

  // Convexity, with witnesses (outside, inside) as topological indices.
  expect("convex.b_c", 1);
  expect("convex.b_c.outside", -1);
  expect("convex.b_c.inside", -1);
  expect("convex.d_i", 0);  // d -> s -> cnd -> i
  expect("convex.d_i.outside", 5);
  expect("convex.d_i.inside", 6);
  expect("convex.a_d", 0);  // a -> c -> d
  expect("convex.a_d.outside", 2);
  expect("convex.a_d.inside", 3);
  expect("convex.all", 1);
  expect("convex.empty", 1);

  // The then-branch of i: u = Neg(b) (b is an outer value: the entry), ty = Abs(u) (the branch's output).
  expect("sub.count", 2);
  expect("sub.index", 1);
  expect("sub.idom", 0);
  expect("sub.ipostdom", -1);
  expect("sub.related_to_outer", 0);
  expect("sub.cross_graph_refused", 1);

  // After t = Tanh(a): the kept dominator tree still says d (as the pass declared); the post-dominators were
  // recomputed (d is read by s alone now), and reachability searches the graph as it is.
  expect("after.rewired", 1);
  expect("after.index.t", 7);
  expect("after.idom.t", 3);
  expect("after.ipostdom.t", 8);
  expect("after.index.d", 3);
  expect("after.idom.d", 0);
  expect("after.ipostdom.d", 4);
  expect("after.reaches_d_t", 0);
  expect("after.reaches_a_t", 1);
}

}  // namespace
}  // namespace kiln
