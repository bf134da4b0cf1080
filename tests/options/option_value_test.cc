// Tests of option value parsing and printing by type.
#include "options/option_value.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace kiln {
namespace {

TEST(OptionValueTest, ParsesBoolsInAnyCaseAndRefusesOthers) {
  OptionValue value;
  EXPECT_EQ(ParseOptionText(OptionType::kBool, "TRUE", value), "");
  EXPECT_EQ(value, OptionValue(true));
  EXPECT_EQ(ParseOptionText(OptionType::kBool, " false ", value), "");
  EXPECT_EQ(value, OptionValue(false));
  EXPECT_EQ(ParseOptionText(OptionType::kBool, "maybe", value), "is not one of: true, false");
  EXPECT_EQ(ParseOptionText(OptionType::kBool, "1", value), "is not one of: true, false");
}

TEST(OptionValueTest, ParsesWholeIntegersAndFiniteNumbers) {
  OptionValue value;
  EXPECT_EQ(ParseOptionText(OptionType::kInt, "-42", value), "");
  EXPECT_EQ(value, OptionValue(std::int64_t{-42}));
  EXPECT_EQ(ParseOptionText(OptionType::kInt, "4x", value), "is not an integer");
  EXPECT_EQ(ParseOptionText(OptionType::kInt, "", value), "is not an integer");
  EXPECT_EQ(ParseOptionText(OptionType::kFloat, "0.25", value), "");
  EXPECT_EQ(value, OptionValue(0.25));
  EXPECT_EQ(ParseOptionText(OptionType::kFloat, "inf", value), "is not a number");
  EXPECT_EQ(ParseOptionText(OptionType::kFloat, "1.5e", value), "is not a number");
}

TEST(OptionValueTest, SplitsListsOnCommasAndSemicolons) {
  OptionValue value;
  EXPECT_EQ(ParseOptionText(OptionType::kList, " A, B;;C ;", value), "");
  EXPECT_EQ(value, OptionValue(std::vector<std::string>{"A", "B", "C"}));
  EXPECT_EQ(FormatOptionValue(value), "A;B;C");
  EXPECT_EQ(ParseOptionText(OptionType::kList, "", value), "");
  EXPECT_TRUE(std::get<std::vector<std::string>>(value).empty());
}

TEST(OptionValueTest, FormatsAndConvertsToJsonByType) {
  EXPECT_EQ(FormatOptionValue(OptionValue(true)), "true");
  EXPECT_EQ(FormatOptionValue(OptionValue(std::int64_t{7})), "7");
  EXPECT_EQ(FormatOptionValue(OptionValue(0.5)), "0.5");
  EXPECT_EQ(OptionValueToJson(OptionValue(false)), nlohmann::json(false));
  EXPECT_EQ(OptionValueToJson(OptionValue(std::int64_t{3})), nlohmann::json(3));
  EXPECT_EQ(OptionValueToJson(OptionValue(std::vector<std::string>{"A"})), nlohmann::json::array({"A"}));
}

}  // namespace
}  // namespace kiln
