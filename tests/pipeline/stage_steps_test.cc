// Tests of StageSteps, the cut of a stage into the steps the driver takes (and --print-pipeline shows): a graph
// pass that runs ends the walk before it and starts the next, after-walk passes join the last walk (or make one
// of their own), and a skipped pass cuts nothing. Also that PlanPipeline reads each pass's kind from the catalog.
#include "pipeline/pipeline_plan.h"

#include <gtest/gtest.h>

#include "pipeline/pipeline_loader.h"
#include "pipeline_test_support.h"

namespace kiln {
namespace {

// A pass named "G..." is a graph pass, any other a node pass; a trailing '-' means it is skipped.
PlannedPass P(std::string name) {
  bool skipped = !name.empty() && name.back() == '-';
  if (skipped) name.pop_back();
  PlannedPass pass;
  pass.pass.name = name;
  pass.decision.run = !skipped;
  pass.graph_pass = name[0] == 'G';
  return pass;
}

PlannedStage Stage(const std::vector<std::string>& passes, const std::vector<std::string>& after = {}) {
  PlannedStage stage{"S", {}, {}};
  for (const std::string& p : passes) stage.passes.push_back(P(p));
  for (const std::string& p : after) stage.after_walk.push_back(P(p));
  return stage;
}

// The steps as text: "walk(N1 N2 | A)" (after-walk passes after '|'), "graph(G1)"; "!" before a walk that does
// not run.
std::string StepsText(const PlannedStage& stage) {
  std::string out;
  for (const PlannedStep& step : StageSteps(stage)) {
    if (!out.empty()) out += " ";
    if (step.kind == PlannedStep::Kind::kGraphPass) {
      out += "graph(" + step.passes.front()->pass.name + ")";
      continue;
    }
    std::string inner;
    for (const PlannedPass* p : step.passes) inner += (inner.empty() ? "" : " ") + p->pass.name;
    if (!step.after_walk.empty()) inner += " |";
    for (const PlannedPass* p : step.after_walk) inner += " " + p->pass.name;
    out += std::string(step.Runs() ? "" : "!") + "walk(" + inner + ")";
  }
  return out;
}

TEST(StageStepsTest, AGraphPassEndsTheWalkBeforeItAndTheNextNodePassesFormTheNextWalk) {
  EXPECT_EQ(StepsText(Stage({"N1", "N2", "G1", "N3", "G2", "N4"}, {"A"})),
            "walk(N1 N2) graph(G1) walk(N3) graph(G2) walk(N4 | A)");
}

TEST(StageStepsTest, AfterWalkPassesJoinTheLastWalkOrMakeOneOfTheirOwn) {
  EXPECT_EQ(StepsText(Stage({"N1"}, {"A", "B"})), "walk(N1 | A B)");
  EXPECT_EQ(StepsText(Stage({"N1", "G1"}, {"A"})), "walk(N1) graph(G1) walk( | A)");
  EXPECT_EQ(StepsText(Stage({}, {"A"})), "walk( | A)");
}

TEST(StageStepsTest, GraphPassesAloneMakeNoWalk) {
  EXPECT_EQ(StepsText(Stage({"G1", "G2"})), "graph(G1) graph(G2)");
  EXPECT_EQ(StepsText(Stage({"G1", "N1"})), "graph(G1) walk(N1)");
  EXPECT_EQ(StepsText(Stage({})), "");
}

TEST(StageStepsTest, ASkippedPassCutsNothingAndStaysWhereItIsListed) {
  EXPECT_EQ(StepsText(Stage({"N1", "G1-", "N2"})), "walk(N1 G1 N2)");
  EXPECT_EQ(StepsText(Stage({"N1-", "G1", "N2"})), "!walk(N1) graph(G1) walk(N2)");
}

TEST(StageStepsTest, AWalkWithNoPassThatRunsDoesNotRun) {
  EXPECT_EQ(StepsText(Stage({"G1", "N1-", "G2"})), "graph(G1) !walk(N1) graph(G2)");
  EXPECT_EQ(StepsText(Stage({"G1"}, {"A-"})), "graph(G1) !walk( | A)");
  // A skipped graph pass is no node pass: a walk holding only that does not run either.
  EXPECT_EQ(StepsText(Stage({"G1-", "G2"}, {})), "!walk(G1) graph(G2)");
  // One after-walk pass that runs is enough.
  EXPECT_EQ(StepsText(Stage({"N1-"}, {"A-", "B"})), "walk(N1 | A B)");
}

TEST(StageStepsTest, PlanPipelineTakesEachPassKindFromTheCatalog) {
  OptionRegistry registry;
  test_support::RegisterOptionsForTests(registry);
  test_support::FakePassCatalog catalog;
  Pipeline pipeline = LoadPipelineText(
      "level: O1\nstages:\n  - name: Prepare\n    passes: [InferShapePass, ConstantFoldingPass]\n"
      "    after_walk: [PotentialConstTakenEffectPass]\n",
      "p.yaml", ".", registry, catalog);
  ResolvedOptions options = ResolveOptions(registry, pipeline.level, {nullptr, nullptr, &pipeline.options});
  PipelinePlan plan = PlanPipeline(pipeline, options, catalog);
  ASSERT_EQ(plan.stages.size(), 1u);
  EXPECT_TRUE(plan.stages[0].passes[0].graph_pass);
  EXPECT_FALSE(plan.stages[0].passes[1].graph_pass);
  EXPECT_FALSE(plan.stages[0].after_walk[0].graph_pass);
  EXPECT_EQ(StepsText(plan.stages[0]),
            "graph(InferShapePass) walk(ConstantFoldingPass | PotentialConstTakenEffectPass)");
}

}  // namespace
}  // namespace kiln
