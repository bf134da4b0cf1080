// MemoryPlanningPass (plugins/memory) through the real compiler on small ONNX text graphs: liveness and in-place
// goldens (each value as "name first..last bN [view|in-place of V]"), subgraphs, unplanned values, the plan
// file's form, the memory-aware order, and that the written model is unchanged but for that order.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "memory/plan_checker.h"
#include "support/golden.h"
#include "support/pass_runner.h"

namespace kiln {
namespace {

using kiln::testing::Canonical;
using kiln::testing::CheckMemoryPlan;
using kiln::testing::ParseModel;
using kiln::testing::PrintGraph;
using kiln::testing::RunPasses;
namespace fs = std::filesystem;

std::string M(const std::string& graph) { return "<ir_version: 8, opset_import: [\"\" : 17]>\n" + graph; }

struct Planned {
  nlohmann::json plan;
  kiln::testing::PassRun run;
};

// Runs shape inference and MemoryPlanningPass on `model` with a plan file, and reads the plan back.
Planned Plan(Model& model, bool reorder = false) {
  static int counter = 0;
  const fs::path file = fs::temp_directory_path() / ("kiln_memory_plan_" + std::to_string(::getpid()) + "_" +
                                                      std::to_string(counter++) + ".json");
  Planned p;
  p.run = RunPasses(model, {"InferShapePass", "MemoryPlanningPass"}, {},
                    {{"memory.plan", file.string()}, {"memory.reorder", reorder ? "true" : "false"}});
  std::ifstream in(file);
  p.plan = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  fs::remove(file);
  return p;
}

// One line per planned value, in the plan's order; then one per unplanned value.
std::string Lines(const nlohmann::json& plan) {
  std::string out;
  for (const auto& v : plan["values"]) {
    out += v["name"].get<std::string>() + " " + std::to_string(v["first"].get<int64_t>()) + ".." +
           std::to_string(v["last"].get<int64_t>()) + " b" + std::to_string(v["buffer"].get<int64_t>());
    if (v.contains("reuse")) out += " " + v["reuse"].get<std::string>() + " of " + v["reuse_of"].get<std::string>();
    out += "\n";
  }
  for (const auto& v : plan["unplanned"])
    out += v["name"].get<std::string>() + " unplanned: " + v["reason"].get<std::string>() + "\n";
  return out;
}

// The changes MemoryPlanningPass reported (shape inference, which runs first, may report its own).
uint64_t PlanningChanges(const kiln::testing::PassRun& run) {
  uint64_t n = 0;
  for (const auto& st : run.report["stages"])
    for (const auto& pass : st["passes"])
      if (pass["name"] == "MemoryPlanningPass") n += pass["changes"].get<uint64_t>();
  return n;
}

// The model printed once shape inference has run (so only what planning does shows in a comparison).
std::string Inferred(Model& m) {
  RunPasses(m, {"InferShapePass"});
  return PrintGraph(m);
}

TEST(MemoryPlanningPass, AChainOfElementwiseOpsRunsInOneBuffer) {
  auto m = ParseModel(M(R"(g (float[16] x) => (float[16] y) {
    a = Relu(x)
    b = Exp(a)
    c = Neg(b)
    y = Sigmoid(c)
  })"));
  ASSERT_TRUE(m);
  Planned p = Plan(*m);
  ASSERT_TRUE(CheckMemoryPlan(p.plan));
  // x is a graph input (not in the arena), so a needs a buffer; each later op overwrites its dying input.
  EXPECT_EQ(Lines(p.plan), "a 0..1 b0\n"
                           "b 1..2 b0 in-place of a\n"
                           "c 2..3 b0 in-place of b\n"
                           "y 3..3 b0 in-place of c\n");
  EXPECT_EQ(p.plan["arena_bytes"], 64);
  EXPECT_EQ(p.plan["lower_bound_bytes"], 64);
  EXPECT_EQ(p.plan["intermediate_bytes"], 4 * 64);
}

TEST(MemoryPlanningPass, AnInputReadLaterIsNotOverwritten) {
  auto m = ParseModel(M(R"(g (float[32] x) => (float[32] y) {
    a = Relu(x)
    b = Exp(a)
    y = Add(a, b)
  })"));
  ASSERT_TRUE(m);
  Planned p = Plan(*m);
  ASSERT_TRUE(CheckMemoryPlan(p.plan));
  // b may not take a's bytes (Add reads a after Exp); Add writes over a, its first dying input.
  EXPECT_EQ(Lines(p.plan), "a 0..2 b0\n"
                           "b 1..2 b1\n"
                           "y 2..2 b0 in-place of a\n");
  EXPECT_EQ(p.plan["lower_bound_bytes"], 256);
  EXPECT_EQ(p.plan["arena_bytes"], 256);
}

TEST(MemoryPlanningPass, ViewsShareTheirInputsBufferAndKeepItAlive) {
  auto m = ParseModel(M(R"(g (float[4,8] x) => (float[32] y, float[4,8] z) <int64[1] s = {32}> {
    a = Relu(x)
    r = Reshape(a, s)
    b = Exp(a)
    y = Neg(r)
    z = Identity(b)
  })"));
  ASSERT_TRUE(m);
  Planned p = Plan(*m);
  ASSERT_TRUE(CheckMemoryPlan(p.plan));
  // r is a's bytes: b cannot overwrite a at step 2 because r is read at step 3; y overwrites r (the buffer dies
  // there). z is a view of b and a graph output.
  EXPECT_EQ(Lines(p.plan), "a 0..2 b0\n"
                           "r 1..3 b0 view of a\n"
                           "b 2..4 b1\n"
                           "y 3..4 b0 in-place of r\n"
                           "z 4..4 b1 view of b\n");
}

TEST(MemoryPlanningPass, GraphOutputsAreNeverOverwritten) {
  auto m = ParseModel(M(R"(g (float[16] x) => (float[16] a, float[16] y) {
    a = Relu(x)
    y = Exp(a)
  })"));
  ASSERT_TRUE(m);
  Planned p = Plan(*m);
  ASSERT_TRUE(CheckMemoryPlan(p.plan));
  EXPECT_EQ(Lines(p.plan), "a 0..1 b0\n"
                           "y 1..1 b1\n");
}

TEST(MemoryPlanningPass, AValueReadInsideABranchLivesUntilTheIfEnds) {
  auto m = ParseModel(M(R"(g (bool c, float[16] x) => (float[16] y, float[16] w) {
    a = Relu(x)
    b = Neg(x)
    y = If(c) <then_branch = t () => (float[16] tt) { tt = Exp(a) },
               else_branch = e () => (float[16] ee) { ee = Identity(b) }>
    w = Sigmoid(b)
  })"));
  ASSERT_TRUE(m);
  Planned p = Plan(*m);
  ASSERT_TRUE(CheckMemoryPlan(p.plan));
  // Steps: a 0, b 1, then tt 2, else ee 3, the If 4, w 5. a and b are read inside the branches, so they live to
  // step 4; tt may not overwrite a (another graph's value), the branch outputs live until the If; w overwrites b.
  EXPECT_EQ(p.plan["schedule"], nlohmann::json::parse(R"(["Relu", "Neg", "Exp", "Identity", "If", "Sigmoid"])"));
  EXPECT_EQ(Lines(p.plan), "a 0..4 b0\n"
                           "b 1..5 b1\n"
                           "tt 2..4 b2\n"
                           "ee 3..4 b1 view of b\n"
                           "y 4..5 b3\n"
                           "w 5..5 b1 in-place of b\n");
}

TEST(MemoryPlanningPass, SymbolicShapesAreListedAsUnplanned) {
  auto m = ParseModel(M(R"(g (float[N, 4] x) => (float[N, 4] y, float[4] s) <int64[1] ax = {0}> {
    a = Relu(x)
    y = Exp(a)
    s = ReduceSum <keepdims = 0> (x, ax)
  })"));
  ASSERT_TRUE(m);
  Planned p = Plan(*m);
  ASSERT_TRUE(CheckMemoryPlan(p.plan));
  EXPECT_EQ(Lines(p.plan), "s 2..2 b0\n"
                           "a unplanned: dimension 0 is 'N'\n"
                           "y unplanned: dimension 0 is 'N'\n");
}

TEST(MemoryPlanningPass, ThePlanFileIsWellFormed) {
  auto m = ParseModel(M(R"(g (float[8,8] x) => (float[8,8] y) {
    a = Relu(x)
    b = MatMul(a, a)
    y = Add(a, b)
  })"));
  ASSERT_TRUE(m);
  Planned p = Plan(*m);
  ASSERT_FALSE(p.plan.is_discarded()) << "the plan is not JSON";
  EXPECT_TRUE(CheckMemoryPlan(p.plan));
  EXPECT_EQ(p.plan["alignment"], 64);
  EXPECT_EQ(p.plan["order"], "original");
  EXPECT_EQ(p.plan["steps"], 3);
  EXPECT_TRUE(p.plan["planners"].contains("greedy_by_size"));
  EXPECT_TRUE(p.plan["planners"].contains("best_fit"));
  EXPECT_TRUE(p.plan["unplanned"].empty());
  // The compile report summarises it under the pass.
  bool found = false;
  for (const auto& st : p.run.report["stages"])
    for (const auto& pass : st["passes"])
      if (pass["name"] == "MemoryPlanningPass" && pass.contains("reports")) {
        const auto& s = pass["reports"]["memory_plan"];
        EXPECT_EQ(s["arena_bytes"], p.plan["arena_bytes"]);
        EXPECT_EQ(s["lower_bound_bytes"], p.plan["lower_bound_bytes"]);
        EXPECT_EQ(s["intermediate_bytes"], 3 * 256);
        found = true;
      }
  EXPECT_TRUE(found) << p.run.report.dump(1);
}

// The report's summary counts what the plan file lists, whether or not a plan file is written (without one, the
// pass frees its per-value records before planning the arena and keeps only their tallies).
TEST(MemoryPlanningPass, TheSummaryCountsTheSameWithAndWithoutAPlanFile) {
  const std::string text = M(R"(g (float[4,16] x, float[N] s) => (float[16,4] y, float[N] t) {
    a = Relu(x)
    b = Sigmoid(a)
    shape = Constant<value = int64[2] {16, 4}>()
    c = Reshape(b, shape)
    y = Neg(c)
    t = Abs(s)
  })");
  auto summary = [](const kiln::testing::PassRun& run) {
    for (const auto& st : run.report["stages"])
      for (const auto& pass : st["passes"])
        if (pass["name"] == "MemoryPlanningPass" && pass.contains("reports")) return pass["reports"]["memory_plan"];
    return nlohmann::json();
  };
  auto with_file = ParseModel(text);
  ASSERT_TRUE(with_file);
  Planned p = Plan(*with_file);
  ASSERT_TRUE(CheckMemoryPlan(p.plan));
  size_t views = 0, in_place = 0;
  for (const auto& v : p.plan["values"]) {
    views += v.value("reuse", "") == "view" ? 1 : 0;
    in_place += v.value("reuse", "") == "in-place" ? 1 : 0;
  }
  EXPECT_GE(views, 1u);
  EXPECT_GE(in_place, 1u);
  EXPECT_GE(p.plan["unplanned"].size(), 1u);
  const nlohmann::json listed = summary(p.run);
  ASSERT_TRUE(listed.is_object()) << p.run.report.dump(1);
  EXPECT_EQ(listed["planned_values"], p.plan["values"].size());
  EXPECT_EQ(listed["views"], views);
  EXPECT_EQ(listed["in_place"], in_place);
  EXPECT_EQ(listed["unplanned_values"], p.plan["unplanned"].size());

  auto without_file = ParseModel(text);
  ASSERT_TRUE(without_file);
  const nlohmann::json alone = summary(RunPasses(*without_file, {"InferShapePass", "MemoryPlanningPass"}));
  EXPECT_EQ(alone, listed);
}

TEST(MemoryPlanChecker, CatchesValuesThatShareBytesWhileLive) {
  auto m = ParseModel(M(R"(g (float[32] x) => (float[32] y) {
    a = Relu(x)
    b = Exp(a)
    y = Add(a, b)
  })"));
  ASSERT_TRUE(m);
  Planned p = Plan(*m);
  ASSERT_TRUE(CheckMemoryPlan(p.plan));
  nlohmann::json bad = p.plan;
  bad["values"][1]["offset"] = bad["values"][0]["offset"];  // b onto a, both live at steps 1..2
  EXPECT_FALSE(CheckMemoryPlan(bad));
  bad = p.plan;
  bad["values"][1]["reuse"] = "in-place";  // b written over a, which Add reads later
  bad["values"][1]["reuse_of"] = "a";
  bad["values"][1]["buffer"] = bad["values"][0]["buffer"];
  bad["values"][1]["offset"] = bad["values"][0]["offset"];
  EXPECT_FALSE(CheckMemoryPlan(bad));
  bad = p.plan;
  bad["lower_bound_bytes"] = 128;
  EXPECT_FALSE(CheckMemoryPlan(bad));
}

const char* kTwoBranches = R"(g (float[64,64] x) => (float[1,1] y) {
    a1 = Relu(x)
    b1 = Exp(x)
    a2 = ReduceSum(a1)
    b2 = ReduceSum(b1)
    y = Add(a2, b2)
  })";

TEST(MemoryPlanningPass, ChangesNothingInTheModelWithoutReorder) {
  auto m = ParseModel(M(kTwoBranches));
  ASSERT_TRUE(m);
  const std::string before = Inferred(*m);
  Planned p = Plan(*m, /*reorder=*/false);
  ASSERT_TRUE(CheckMemoryPlan(p.plan));
  EXPECT_EQ(PlanningChanges(p.run), 0u);
  EXPECT_EQ(PrintGraph(*m), before);
  EXPECT_EQ(p.plan["order"], "original");
}

TEST(MemoryPlanningPass, AMemoryAwareOrderRunsOneBranchAtATime) {
  auto m = ParseModel(M(kTwoBranches));
  ASSERT_TRUE(m);
  Planned p = Plan(*m, /*reorder=*/true);
  ASSERT_TRUE(CheckMemoryPlan(p.plan));
  EXPECT_GT(PlanningChanges(p.run), 0u);
  EXPECT_EQ(p.plan["order"], "memory_aware");
  // Written order: each big value is reduced before the next one is made. Same nodes, same edges.
  EXPECT_EQ(PrintGraph(*m), Canonical(M(R"(g (float[64,64] x) => (float[1,1] y) {
    a1 = Relu(x)
    a2 = ReduceSum(a1)
    b1 = Exp(x)
    b2 = ReduceSum(b1)
    y = Add(a2, b2)
  })")));
  EXPECT_EQ(p.plan["original_order_lower_bound_bytes"], 2 * 16384 + 64);
  // At step 3 b1, its sum b2 and a2 are live: 16384 + 64 + 64.
  EXPECT_EQ(p.plan["lower_bound_bytes"], 16384 + 128);
  EXPECT_EQ(p.plan["arena_bytes"], 16384 + 128);
}

TEST(MemoryPlanningPass, AnOrderThatIsAlreadyBestIsKept) {
  auto m = ParseModel(M(R"(g (float[64,64] x) => (float[1,1] y) {
    a1 = Relu(x)
    a2 = ReduceSum(a1)
    b1 = Exp(x)
    b2 = ReduceSum(b1)
    y = Add(a2, b2)
  })"));
  ASSERT_TRUE(m);
  const std::string before = Inferred(*m);
  Planned p = Plan(*m, /*reorder=*/true);
  ASSERT_TRUE(CheckMemoryPlan(p.plan));
  EXPECT_EQ(PlanningChanges(p.run), 0u);
  EXPECT_EQ(PrintGraph(*m), before);
  EXPECT_EQ(p.plan["order"], "original");
}

// The order's edges come from every output a node reads, inside its branches too, and each value read counts once
// however often a node reads it: the If waits for the Concat its branches read, and Mul, reading both outputs of
// the Split, waits for it once.
TEST(MemoryPlanningPass, AMemoryAwareOrderKeepsEdgesFromBranchesAndSeveralOutputs) {
  const char* kGiven = R"(g (float[16,64] x, bool c) => (float[1,1] y) {
    p, q = Split<axis = 0>(x)
    h = Mul(p, q)
    a1 = Concat<axis = 0>(h, h, h, h, h, h, h, h)
    b1 = Concat<axis = 0>(q, h, q, h, q, h, q, h)
    a2 = ReduceSum(a1)
    b2 = If(c) <then_branch = tb () => (float[1,1] tt) { tt = ReduceSum(b1) },
                else_branch = eb () => (float[1,1] ee) { ee = ReduceMax(b1) }>
    y = Add(a2, b2)
  })";
  auto m = ParseModel(M(kGiven));
  ASSERT_TRUE(m);
  Planned p = Plan(*m, /*reorder=*/true);
  ASSERT_TRUE(CheckMemoryPlan(p.plan));
  EXPECT_EQ(p.plan["order"], "memory_aware");
  // Each 16 KiB concatenation is reduced before the next is made; b1 goes first, as it reads q for the last time.
  EXPECT_EQ(PrintGraph(*m), Canonical(M(R"(g (float[16,64] x, bool c) => (float[1,1] y) {
    p, q = Split<axis = 0>(x)
    h = Mul(p, q)
    b1 = Concat<axis = 0>(q, h, q, h, q, h, q, h)
    b2 = If(c) <then_branch = tb () => (float[1,1] tt) { tt = ReduceSum(b1) },
                else_branch = eb () => (float[1,1] ee) { ee = ReduceMax(b1) }>
    a1 = Concat<axis = 0>(h, h, h, h, h, h, h, h)
    a2 = ReduceSum(a1)
    y = Add(a2, b2)
  })")));
  EXPECT_LT(p.plan["lower_bound_bytes"].get<uint64_t>(), p.plan["original_order_lower_bound_bytes"].get<uint64_t>());
}

}  // namespace
}  // namespace kiln
