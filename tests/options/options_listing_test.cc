// Tests of the `kiln options` data: JSON with per-level defaults, allowed values, places, owner; the text table.
#include "options/options_listing.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "folding_option_stand_ins.h"
#include "options/core_options.h"

namespace kiln {
namespace {

const nlohmann::json* FindOption(const nlohmann::json& listing, std::string_view name) {
  for (const nlohmann::json& option : listing["options"]) {
    if (option["name"] == name) return &option;
  }
  return nullptr;
}

class OptionsListingTest : public ::testing::Test {
 protected:
  OptionsListingTest() {
    RegisterCoreOptions(registry_);
    test_support::RegisterFoldingOptionStandIns(registry_);
    registry_.Add(OptionDef::Int("fusion.maxGroup")
                      .ActiveFrom(OptLevel::kO2)
                      .Default("4")
                      .DefaultAt(OptLevel::kO3, "8")
                      .Owner("fusion")
                      .Help("Largest fused group."));
  }
  OptionRegistry registry_;
};

TEST_F(OptionsListingTest, JsonListsEveryOptionWithPerLevelDefaults) {
  nlohmann::json listing = OptionsToJson(registry_);
  // A round trip through text proves it is valid JSON.
  ASSERT_EQ(nlohmann::json::parse(listing.dump()), listing);
  EXPECT_TRUE(listing["level"].is_null());
  EXPECT_EQ(listing["options"].size(), 9u);
  const nlohmann::json* folding = FindOption(listing, "oo.constantFolding");
  ASSERT_NE(folding, nullptr);
  EXPECT_EQ((*folding)["type"], "bool");
  EXPECT_EQ((*folding)["levels"], nlohmann::json::array({"O1", "O2", "O3"}));
  EXPECT_EQ((*folding)["defaults"], nlohmann::json({{"O1", true}, {"O2", true}, {"O3", true}}));
  EXPECT_EQ((*folding)["allowed"], nlohmann::json::array({"true", "false"}));
  EXPECT_EQ((*folding)["settable"], nlohmann::json::array({"cli", "session", "graph", "pipeline"}));
  EXPECT_EQ((*folding)["owner"], "folding");
  EXPECT_EQ((*FindOption(listing, "oo.level"))["owner"], "host");
  EXPECT_FALSE((*folding)["help"].get<std::string>().empty());
  const nlohmann::json* level = FindOption(listing, "oo.level");
  ASSERT_NE(level, nullptr);
  EXPECT_EQ((*level)["defaults"]["O0"], "O2");
  EXPECT_EQ((*level)["allowed"], nlohmann::json::array({"O0", "O1", "O2", "O3"}));
  EXPECT_EQ((*level)["settable"], nlohmann::json::array({"cli", "session", "graph"}));
  const nlohmann::json* group = FindOption(listing, "fusion.maxGroup");
  ASSERT_NE(group, nullptr);
  EXPECT_EQ((*group)["defaults"], nlohmann::json({{"O2", 4}, {"O3", 8}}));
  EXPECT_EQ((*group)["owner"], "fusion");
}

TEST_F(OptionsListingTest, ALevelListsOnlyTheOptionsActiveThere) {
  nlohmann::json at_o0 = OptionsToJson(registry_, OptLevel::kO0);
  EXPECT_EQ(at_o0["level"], "O0");
  EXPECT_EQ(FindOption(at_o0, "oo.constantFolding"), nullptr);
  ASSERT_NE(FindOption(at_o0, "oo.disableOptimizations"), nullptr);
  nlohmann::json at_o3 = OptionsToJson(registry_, OptLevel::kO3);
  const nlohmann::json* group = FindOption(at_o3, "fusion.maxGroup");
  ASSERT_NE(group, nullptr);
  EXPECT_EQ((*group)["defaults"], nlohmann::json({{"O3", 8}}));
  EXPECT_EQ((*group)["levels"], nlohmann::json::array({"O3"}));
}

TEST_F(OptionsListingTest, TableShowsDefaultsAllowedValuesAndOwner) {
  std::string table = OptionsToTable(registry_);
  EXPECT_NE(table.find("oo.constantFolding"), std::string::npos);
  EXPECT_NE(table.find("default O1..O3: true"), std::string::npos);
  EXPECT_NE(table.find("default O2: 4; O3: 8"), std::string::npos);
  EXPECT_NE(table.find("allowed: Balanced, MemoryPriority"), std::string::npos);
  EXPECT_NE(table.find("(fusion)"), std::string::npos);
  EXPECT_NE(table.find("Largest fused group."), std::string::npos);
  std::string at_o0 = OptionsToTable(registry_, OptLevel::kO0);
  EXPECT_EQ(at_o0.find("oo.constantFolding"), std::string::npos);
  EXPECT_NE(at_o0.find("oo.level"), std::string::npos);
}

}  // namespace
}  // namespace kiln
