// Parsing and printing option values; see option_value.h.
#include "options/option_value.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

namespace kiln {
namespace {

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

}  // namespace

std::string_view OptionTypeName(OptionType type) {
  switch (type) {
    case OptionType::kBool: return "bool";
    case OptionType::kInt: return "int";
    case OptionType::kFloat: return "float";
    case OptionType::kString: return "string";
    case OptionType::kEnum: return "enum";
    case OptionType::kList: return "list";
  }
  return "?";
}

std::string_view TrimSpaces(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

std::vector<std::string> SplitOptionList(std::string_view text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find_first_of(",;", start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view item = TrimSpaces(text.substr(start, end - start));
    if (!item.empty()) items.emplace_back(item);
    start = end + 1;
  }
  return items;
}

std::string ParseOptionText(OptionType type, std::string_view raw, OptionValue& out) {
  std::string_view text = type == OptionType::kString ? raw : TrimSpaces(raw);
  switch (type) {
    case OptionType::kBool:
      if (EqualsIgnoringCase(text, "true")) {
        out = true;
      } else if (EqualsIgnoringCase(text, "false")) {
        out = false;
      } else {
        return "is not one of: true, false";
      }
      return "";
    case OptionType::kInt: {
      std::int64_t value = 0;
      auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (text.empty() || error != std::errc() || end != text.data() + text.size()) return "is not an integer";
      out = value;
      return "";
    }
    case OptionType::kFloat: {
      double value = 0;
      auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (text.empty() || error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
        return "is not a number";
      }
      out = value;
      return "";
    }
    case OptionType::kString:
    case OptionType::kEnum: out = std::string(text); return "";
    case OptionType::kList: out = SplitOptionList(text); return "";
  }
  return "has an unknown type";
}

std::string FormatOptionValue(const OptionValue& value) {
  struct Formatter {
    std::string operator()(bool v) const { return v ? "true" : "false"; }
    std::string operator()(std::int64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const {
      std::ostringstream stream;
      stream.imbue(std::locale::classic());
      stream << v;
      return stream.str();
    }
    std::string operator()(const std::string& v) const { return v; }
    std::string operator()(const std::vector<std::string>& v) const {
      std::string out;
      for (const std::string& item : v) out += (out.empty() ? "" : ";") + item;
      return out;
    }
  };
  return std::visit(Formatter{}, value);
}

nlohmann::json OptionValueToJson(const OptionValue& value) {
  return std::visit([](const auto& v) { return nlohmann::json(v); }, value);
}

}  // namespace kiln
