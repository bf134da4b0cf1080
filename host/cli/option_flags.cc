#include "cli/option_flags.h"

#include <filesystem>

#include "options/core_options.h"
#include "support/error.h"
#include "support/logging.h"

namespace kiln::cli {

std::vector<OptionFlag> ExtractOptionFlags(std::vector<std::string>& args) {
  std::vector<OptionFlag> flags;
  std::vector<std::string> rest;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    bool dotted = i > 0 && a.rfind("--", 0) == 0 && a.find('.') != std::string::npos &&
                  a.find('.') < a.find('=');
    if (!dotted) {
      rest.push_back(a);
      continue;
    }
    std::string body = a.substr(2);
    size_t eq = body.find('=');
    if (eq != std::string::npos) {
      flags.push_back({body.substr(0, eq), body.substr(eq + 1), a});
    } else {
      if (i + 1 >= args.size()) throw UsageError(a + ": missing value (write " + a + "=VALUE)");
      flags.push_back({body, args[i + 1], a + " " + args[i + 1]});
      ++i;
    }
  }
  args = std::move(rest);
  return flags;
}

std::vector<OptionFlag>& GivenOptionFlags() {
  static std::vector<OptionFlag> flags;
  return flags;
}

std::shared_ptr<AliasFlagValues> AddAliasFlags(CLI::App* cmd) {
  auto given = std::make_shared<AliasFlagValues>();
  given->values.resize(OptionAliases().size());
  size_t i = 0;
  for (const OptionAlias& alias : OptionAliases()) {
    std::vector<std::string>& values = given->values[i++];
    if (alias.cli_flag.empty()) continue;
    std::string help = std::string(alias.help) + (alias.appends ? "" : "; the last one given wins");
    cmd->add_option(std::string(alias.cli_flag), values, help)->type_name(std::string(alias.value_name));
  }
  return given;
}

std::vector<OptionFlag> AliasSettings(const AliasFlagValues& given, const std::vector<OptionFlag>& flags) {
  std::vector<OptionFlag> out;
  std::error_code ec;
  const std::filesystem::path cwd = std::filesystem::current_path(ec);
  size_t i = 0;
  for (const OptionAlias& alias : OptionAliases()) {
    const std::vector<std::string>& raw = given.values[i++];
    if (raw.empty()) continue;
    std::vector<std::string> values;
    std::string text;
    for (const std::string& v : raw) {
      if (v.empty()) throw UsageError(std::string(alias.cli_flag) + ": expected " + std::string(alias.value_name) +
                                      ", got an empty string");
      std::string value = alias.value_prefix.empty() || v.starts_with(alias.value_prefix)
                              ? v
                              : std::string(alias.value_prefix) + v;
      values.push_back(alias.paths ? AliasPath(value, cwd) : value);
      text += (text.empty() ? "" : " ") + std::string(alias.cli_flag) + " " + v;
    }
    std::string existing;
    for (const OptionFlag& f : flags)
      if (f.name == alias.option) existing = f.value;
    out.push_back({std::string(alias.option), ApplyAliasValues(alias, existing, values), text});
  }
  return out;
}

std::vector<OptionText> GivenOptionTexts(const AliasFlagValues& aliases) {
  std::vector<OptionText> texts;
  for (const OptionFlag& f : GivenOptionFlags()) texts.push_back({f.name, f.value, f.text});
  for (const OptionFlag& f : AliasSettings(aliases, GivenOptionFlags())) texts.push_back({f.name, f.value, f.text});
  return texts;
}

void SetLogLevelFlag(const std::string& level) {
  if (!SetLogLevel(level))
    throw UsageError("--log-level: '" + level + "' is not one of: trace, debug, info, warn, error, off");
}

}  // namespace kiln::cli
