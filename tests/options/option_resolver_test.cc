// Tests of option resolution: each precedence layer beats every layer below it (one test per pair), level
// activation, oo.level resolution, and the refusals of OptionLayer::Set (place, name, value).
#include "options/option_resolver.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "folding_option_stand_ins.h"
#include "options/core_options.h"
#include "support/error.h"

namespace kiln {
namespace {

std::string MessageOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kConfig);
    return e.what();
  }
  ADD_FAILURE() << "no kiln::Error thrown";
  return "";
}

class OptionResolverTest : public ::testing::Test {
 protected:
  OptionResolverTest() {
    RegisterCoreOptions(registry_);
    test_support::RegisterFoldingOptionStandIns(registry_);
    // An int with a distinct value per layer makes every pair distinguishable. Default 1.
    registry_.Add(OptionDef::Int("test.n").Default("1"));
    registry_.Add(
        OptionDef::Bool("test.cliOnly").Default("false").Places(static_cast<OptionPlaces>(OptionPlace::kCli)));
  }

  ResolvedOption Resolve(std::string_view name, OptLevel level = OptLevel::kO2) {
    ResolvedOptions resolved = ResolveOptions(registry_, level, {&graph_, &session_, &pipeline_});
    return resolved.Get(name);
  }

  OptionRegistry registry_;
  OptionLayer graph_{OptionPlace::kGraph};
  OptionLayer session_{OptionPlace::kSession};
  OptionLayer pipeline_{OptionPlace::kPipeline};
};

TEST_F(OptionResolverTest, DefaultWhenNoLayerSetsIt) {
  ResolvedOption n = Resolve("test.n");
  EXPECT_EQ(n.value, OptionValue(std::int64_t{1}));
  EXPECT_EQ(n.source, OptionSource::kDefault);
}

TEST_F(OptionResolverTest, GraphBeatsSession) {
  graph_.Set(registry_, "test.n", "4", "graph");
  session_.Set(registry_, "test.n", "3", "--test.n");
  ResolvedOption n = Resolve("test.n");
  EXPECT_EQ(n.value, OptionValue(std::int64_t{4}));
  EXPECT_EQ(n.source, OptionSource::kGraph);
  EXPECT_EQ(n.origin, "graph");
}

TEST_F(OptionResolverTest, GraphBeatsPipeline) {
  graph_.Set(registry_, "test.n", "4");
  pipeline_.Set(registry_, "test.n", "2");
  ResolvedOption n = Resolve("test.n");
  EXPECT_EQ(n.value, OptionValue(std::int64_t{4}));
  EXPECT_EQ(n.source, OptionSource::kGraph);
}

TEST_F(OptionResolverTest, GraphBeatsDefault) {
  graph_.Set(registry_, "oo.constantFolding", "false");
  ResolvedOption folding = Resolve("oo.constantFolding");
  EXPECT_EQ(folding.value, OptionValue(false));
  EXPECT_EQ(folding.source, OptionSource::kGraph);
}

TEST_F(OptionResolverTest, SessionBeatsPipeline) {
  session_.Set(registry_, "test.n", "3", "--test.n");
  pipeline_.Set(registry_, "test.n", "2", "O2.yaml:5:3");
  ResolvedOption n = Resolve("test.n");
  EXPECT_EQ(n.value, OptionValue(std::int64_t{3}));
  EXPECT_EQ(n.source, OptionSource::kSession);
  EXPECT_EQ(n.origin, "--test.n");
}

TEST_F(OptionResolverTest, SessionBeatsDefault) {
  session_.Set(registry_, "oo.memoryPolicy", "MemoryPriority");
  ResolvedOption policy = Resolve("oo.memoryPolicy");
  EXPECT_EQ(policy.value, OptionValue(std::string("MemoryPriority")));
  EXPECT_EQ(policy.source, OptionSource::kSession);
}

TEST_F(OptionResolverTest, PipelineBeatsDefault) {
  pipeline_.Set(registry_, "test.n", "2", "O2.yaml:5:3");
  ResolvedOption n = Resolve("test.n");
  EXPECT_EQ(n.value, OptionValue(std::int64_t{2}));
  EXPECT_EQ(n.source, OptionSource::kPipeline);
  EXPECT_EQ(n.origin, "O2.yaml:5:3");
}

TEST_F(OptionResolverTest, InactiveOptionsReadOffAndIgnoreSettingsWithANote) {
  session_.Set(registry_, "oo.constantFolding", "true", "--oo.constantFolding");
  ResolvedOptions at_o0 = ResolveOptions(registry_, OptLevel::kO0, {&graph_, &session_, &pipeline_});
  const ResolvedOption& folding = at_o0.Get("oo.constantFolding");
  EXPECT_FALSE(folding.active());
  EXPECT_EQ(folding.source, OptionSource::kInactive);
  EXPECT_FALSE(at_o0.GetBool("oo.constantFolding"));
  EXPECT_EQ(folding.note, "set in session options but not active at O0 (active from O1)");
  // A non-bool inactive option reads its lowest-level default.
  EXPECT_EQ(at_o0.GetString("oo.memoryPolicy"), "Balanced");
  EXPECT_FALSE(at_o0.Get("oo.memoryPolicy").active());
  for (OptLevel level : {OptLevel::kO1, OptLevel::kO2, OptLevel::kO3}) {
    ResolvedOptions resolved = ResolveOptions(registry_, level, {&graph_, &session_, &pipeline_});
    EXPECT_TRUE(resolved.Get("oo.constantFolding").active());
    EXPECT_EQ(resolved.Get("oo.constantFolding").source, OptionSource::kSession);
  }
}

TEST_F(OptionResolverTest, LevelComesFromGraphThenSessionThenDefault) {
  EXPECT_EQ(ResolveLevel(registry_, {&graph_, &session_, &pipeline_}), OptLevel::kO2);
  session_.Set(registry_, "oo.level", "O1");
  EXPECT_EQ(ResolveLevel(registry_, {&graph_, &session_, &pipeline_}), OptLevel::kO1);
  graph_.Set(registry_, "oo.level", "O3");
  EXPECT_EQ(ResolveLevel(registry_, {&graph_, &session_, &pipeline_}), OptLevel::kO3);
  ResolvedOptions resolved = ResolveOptions(registry_, OptLevel::kO3, {&graph_, &session_, &pipeline_});
  EXPECT_EQ(resolved.GetString("oo.level"), "O3");
  EXPECT_EQ(resolved.Get("oo.level").source, OptionSource::kGraph);
  // When the caller compiles at another level (a pipeline file's), oo.level reads that level, from "pipeline".
  ResolvedOptions other = ResolveOptions(registry_, OptLevel::kO1, {&graph_, &session_, &pipeline_});
  EXPECT_EQ(other.GetString("oo.level"), "O1");
  EXPECT_EQ(other.Get("oo.level").source, OptionSource::kPipeline);
  EXPECT_EQ(ResolveOptions(registry_, OptLevel::kO2, {}).Get("oo.level").source, OptionSource::kDefault);
}

TEST_F(OptionResolverTest, LayersRefuseOptionsSetWhereTheyMayNotBe) {
  EXPECT_EQ(MessageOf([&] { graph_.Set(registry_, "test.cliOnly", "true"); }),
            "option test.cliOnly may not be set in graph options (it may be set in: cli)");
  EXPECT_EQ(MessageOf([&] { pipeline_.Set(registry_, "oo.level", "O1"); }),
            "option oo.level may not be set in pipeline options (it may be set in: cli, session, graph)");
  OptionLayer cli(OptionPlace::kCli);
  cli.Set(registry_, "test.cliOnly", "true");
  EXPECT_NE(cli.Find("test.cliOnly"), nullptr);
  EXPECT_EQ(graph_.Find("test.cliOnly"), nullptr);
}

TEST_F(OptionResolverTest, LayersRefuseUnknownNamesAndBadValues) {
  EXPECT_EQ(MessageOf([&] { session_.Set(registry_, "oo.constantFoldin", "true"); }),
            "unknown option 'oo.constantFoldin'; did you mean 'oo.constantFolding'?");
  EXPECT_EQ(MessageOf([&] { session_.Set(registry_, "oo.constantFolding", "maybe"); }),
            "option oo.constantFolding: 'maybe' is not one of: true, false");
  EXPECT_TRUE(session_.empty());
}

TEST_F(OptionResolverTest, TypedGettersAndJson) {
  session_.Set(registry_, "oo.disableOptimizations", "A;B", "--oo.disableOptimizations");
  ResolvedOptions resolved = ResolveOptions(registry_, OptLevel::kO2, {nullptr, &session_, nullptr});
  EXPECT_EQ(resolved.GetList("oo.disableOptimizations"), (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(resolved.GetInt("test.n"), 1);
  EXPECT_THROW(resolved.GetBool("test.n"), Error);
  EXPECT_THROW(resolved.Get("no.such"), Error);
  nlohmann::json json = resolved.ToJson();
  EXPECT_EQ(json["level"], "O2");
  bool found = false;
  for (const nlohmann::json& option : json["options"]) {
    if (option["name"] != "oo.disableOptimizations") continue;
    found = true;
    EXPECT_EQ(option["value"], nlohmann::json::array({"A", "B"}));
    EXPECT_EQ(option["source"], "session");
    EXPECT_EQ(option["origin"], "--oo.disableOptimizations");
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace kiln
