#include "cli/option_flags.h"

#include "support/error.h"

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

}  // namespace kiln::cli
