// The value of an option: its type (bool, int, float, string, enum, list), the variant that holds a parsed value,
// and the conversions between values and the text a user writes (the CLI and YAML give strings).
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace kiln {

enum class OptionType { kBool, kInt, kFloat, kString, kEnum, kList };

std::string_view OptionTypeName(OptionType type);

// bool for kBool, int64 for kInt, double for kFloat, string for kString and kEnum, a string list for kList.
using OptionValue = std::variant<bool, std::int64_t, double, std::string, std::vector<std::string>>;

// Parses `text` as `type`, without the option's checker: "true"/"false" (any case), a whole decimal integer, a
// finite number, any string; a list splits on ',' and ';'. Returns "" on success, else why it failed
// ("is not an integer"); `out` is set only on success.
std::string ParseOptionText(OptionType type, std::string_view text, OptionValue& out);

// The text form a user would write: "true", "3", "0.5", "Balanced", "A;B" (lists joined with ';').
std::string FormatOptionValue(const OptionValue& value);

// JSON form: a bool, a number, a string, or an array of strings.
nlohmann::json OptionValueToJson(const OptionValue& value);

// Splits "A, B;C" into {"A", "B", "C"}: separators ',' and ';', items trimmed, empty items dropped.
std::vector<std::string> SplitOptionList(std::string_view text);

// Leading and trailing ASCII whitespace removed.
std::string_view TrimSpaces(std::string_view text);

}  // namespace kiln
