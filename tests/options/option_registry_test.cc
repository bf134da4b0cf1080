// Tests of the option registry: the core options (and that the folding plugin's are not among them), level
// activation and per-level defaults, value checking with the messages users see, and refusal of broken definitions.
// The folding plugin's options are stand-ins here (folding_option_stand_ins.h): this test loads no plugin.
#include "options/option_registry.h"

#include <gtest/gtest.h>

#include "folding_option_stand_ins.h"
#include "options/core_options.h"
#include "support/error.h"

namespace kiln {
namespace {

// The message and exit code of the Error that `fn` throws; fails the test if it throws nothing.
template <typename Fn>
std::pair<std::string, ExitCode> ErrorOf(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return {e.what(), e.code()};
  }
  ADD_FAILURE() << "no kiln::Error thrown";
  return {"", ExitCode::kOk};
}

class OptionRegistryTest : public ::testing::Test {
 protected:
  OptionRegistryTest() {
    RegisterCoreOptions(registry_);
    test_support::RegisterFoldingOptionStandIns(registry_);
  }
  OptionRegistry registry_;
};

TEST(CoreOptionsTest, RegistersTheLevelAndTheTwoPassLists) {
  OptionRegistry core;
  RegisterCoreOptions(core);
  EXPECT_EQ(core.Names(), (std::vector<std::string>{std::string(kDisableOptimizationsOption),
                                                    std::string(kOptLevelOption),
                                                    std::string(kOptimizationSwitchOption),
                                                    std::string(kTargetOption)}));
  EXPECT_EQ(core.Get(kTargetOption).DefaultAt(OptLevel::kO0), OptionValue(std::string("")));
  for (const OptionDef* def : core.All()) EXPECT_EQ(def->owner, "host") << def->name;
  EXPECT_EQ(core.Get(kOptLevelOption).DefaultAt(OptLevel::kO0), OptionValue(std::string("O2")));
  EXPECT_EQ(core.Get(kOptLevelOption).allowed, (std::vector<std::string>{"O0", "O1", "O2", "O3"}));
}

TEST(CoreOptionsTest, ThePassesOptionsAreNotTheHosts) {
  // The folding plugin registers these through the ABI; without it they are unknown.
  OptionRegistry core;
  RegisterCoreOptions(core);
  for (const char* name : {"oo.constantFolding", "oo.deadCodeElimination", "oo.commonSubexpressionElimination",
                           "oo.memoryPolicy"})
    EXPECT_EQ(core.Find(name), nullptr) << name;
}

TEST_F(OptionRegistryTest, AnOptionRegisteredAtO1IsActiveAtO1AndAbove) {
  const OptionDef& folding = registry_.Get("oo.constantFolding");
  EXPECT_FALSE(folding.IsActiveAt(OptLevel::kO0));
  EXPECT_TRUE(folding.IsActiveAt(OptLevel::kO1));
  EXPECT_TRUE(folding.IsActiveAt(OptLevel::kO2));
  EXPECT_TRUE(folding.IsActiveAt(OptLevel::kO3));
  EXPECT_EQ(folding.DefaultAt(OptLevel::kO0), std::nullopt);
  EXPECT_EQ(folding.DefaultAt(OptLevel::kO3), OptionValue(true));
}

TEST_F(OptionRegistryTest, PerLevelDefaultsAreInheritedUpward) {
  registry_.Add(OptionDef::Int("test.unroll").ActiveFrom(OptLevel::kO1).Default("2").DefaultAt(OptLevel::kO3, "8"));
  const OptionDef& def = registry_.Get("test.unroll");
  EXPECT_EQ(def.DefaultAt(OptLevel::kO0), std::nullopt);
  EXPECT_EQ(def.DefaultAt(OptLevel::kO1), OptionValue(std::int64_t{2}));
  EXPECT_EQ(def.DefaultAt(OptLevel::kO2), OptionValue(std::int64_t{2}));
  EXPECT_EQ(def.DefaultAt(OptLevel::kO3), OptionValue(std::int64_t{8}));
}

TEST_F(OptionRegistryTest, RefusedValuesNameTheOptionAndTheAllowedValues) {
  auto [message, code] = ErrorOf([&] { registry_.Parse("oo.constantFolding", "maybe"); });
  EXPECT_EQ(message, "option oo.constantFolding: 'maybe' is not one of: true, false");
  EXPECT_EQ(code, ExitCode::kConfig);
  EXPECT_EQ(ErrorOf([&] { registry_.Parse("oo.memoryPolicy", "Fast"); }).first,
            "option oo.memoryPolicy: 'Fast' is not one of: Balanced, MemoryPriority");
  EXPECT_EQ(ErrorOf([&] { registry_.Parse("oo.level", "O4"); }).first,
            "option oo.level: 'O4' is not one of: O0, O1, O2, O3");
  EXPECT_EQ(ErrorOf([&] { registry_.Parse("oo.optimizationSwitch", "ConstantFoldingPass:on;DeadCode"); }).first,
            "option oo.optimizationSwitch: 'ConstantFoldingPass:on;DeadCode' has an item 'DeadCode' that is not "
            "PassName:on|off (expected PassName:on|off items separated by ';')");
  EXPECT_EQ(ErrorOf([&] { registry_.Parse("oo.optimizationSwitch", "A:maybe"); }).first.find("item 'A:maybe'") !=
                std::string::npos,
            true);
}

TEST_F(OptionRegistryTest, AcceptedValuesParseToTheirType) {
  EXPECT_EQ(registry_.Parse("oo.constantFolding", "false"), OptionValue(false));
  EXPECT_EQ(registry_.Parse("oo.memoryPolicy", "MemoryPriority"), OptionValue(std::string("MemoryPriority")));
  EXPECT_EQ(registry_.Parse("oo.optimizationSwitch", "A:on; B : OFF"),
            OptionValue(std::vector<std::string>{"A:on", "B : OFF"}));
  EXPECT_EQ(registry_.Parse("oo.disableOptimizations", "A,B;C"), OptionValue(std::vector<std::string>{"A", "B", "C"}));
}

TEST_F(OptionRegistryTest, RangesAreChecked) {
  registry_.Add(OptionDef::Int("test.threads").Default("4").Range(1, 64));
  EXPECT_EQ(registry_.Parse("test.threads", "64"), OptionValue(std::int64_t{64}));
  EXPECT_EQ(ErrorOf([&] { registry_.Parse("test.threads", "0"); }).first,
            "option test.threads: '0' is out of range (expected integer in [1, 64])");
  EXPECT_EQ(ErrorOf([&] { registry_.Parse("test.threads", "four"); }).first,
            "option test.threads: 'four' is not an integer (expected integer in [1, 64])");
}

TEST_F(OptionRegistryTest, UnknownNamesGetTheNearestSuggested) {
  auto [message, code] = ErrorOf([&] { registry_.Get("oo.constantFoldng"); });
  EXPECT_EQ(message, "unknown option 'oo.constantFoldng'; did you mean 'oo.constantFolding'?");
  EXPECT_EQ(code, ExitCode::kConfig);
  EXPECT_EQ(ErrorOf([&] { registry_.Get("nothing.like.it.at.all"); }).first, "unknown option 'nothing.like.it.at.all'");
}

TEST_F(OptionRegistryTest, RefusesBrokenDefinitions) {
  auto duplicate = ErrorOf([&] { registry_.Add(OptionDef::Bool("oo.constantFolding").Default("true")); });
  EXPECT_EQ(duplicate.first,
            "option oo.constantFolding registered by host: the name is already registered by folding");
  EXPECT_EQ(duplicate.second, ExitCode::kInternal);

  auto plugin = ErrorOf([&] { registry_.Add(OptionDef::Bool("fusion.enable").Default("yes").Owner("fusion")); });
  EXPECT_EQ(plugin.first,
            "option fusion.enable registered by fusion: bad default for O0: option fusion.enable: 'yes' is not one "
            "of: true, false");
  EXPECT_EQ(plugin.second, ExitCode::kPlugin);

  auto below = ErrorOf([&] {
    registry_.Add(OptionDef::Bool("test.x").ActiveFrom(OptLevel::kO2).Default("true").DefaultAt(OptLevel::kO1, "true"));
  });
  EXPECT_NE(below.first.find("a default for O1, below the level it is active from"), std::string::npos);
  EXPECT_NE(ErrorOf([&] { registry_.Add(OptionDef::Enum("test.e", {})); }).first.find("an enum with no values"),
            std::string::npos);
  EXPECT_EQ(registry_.Find("test.x"), nullptr);
}

TEST(PassSwitchTest, ParsesOnAndOffItems) {
  auto on = ParsePassSwitch(" ConstantFoldingPass : ON ");
  ASSERT_TRUE(on);
  EXPECT_EQ(on->pass, "ConstantFoldingPass");
  EXPECT_TRUE(on->on);
  auto off = ParsePassSwitch("X:off");
  ASSERT_TRUE(off);
  EXPECT_FALSE(off->on);
  EXPECT_FALSE(ParsePassSwitch("X"));
  EXPECT_FALSE(ParsePassSwitch(":on"));
  EXPECT_FALSE(ParsePassSwitch("X:yes"));
}

}  // namespace
}  // namespace kiln
