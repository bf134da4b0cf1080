// Loading fusion rule packs: YAML text (a file of configs/fusion, a pack given with --fusion-pack, or one a plugin
// registered) into a RulePack. Every problem is one RuleError whose message starts with file:line:column: an
// unknown key, a missing pattern, a pattern or expression that does not parse (the column points into it), a
// predicate of the wrong type, a variable a predicate or action names that the pattern does not bind.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rule.h"

namespace kiln::fusion {

class RuleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `source` names the text in messages (a path, or "plugin:pack").
RulePack LoadRulePack(std::string_view yaml, const std::string& source);
RulePack LoadRulePackFile(const std::string& path);
// The packs of `paths`, in that order, read side by side on up to one thread per core: yaml-cpp reads about 3 MB/s,
// so the shipped packs alone take about 5 ms on one core, a tenth of a small model's compile. A failure is the first
// failing file's, in the order given, whatever order the threads met them in. max_threads > 0 caps the threads
// (1: this thread alone).
std::vector<RulePack> LoadRulePackFiles(const std::vector<std::string>& paths, size_t max_threads = 0);

// Parses a rewrite's replacement (exposed for tests): Op{attr: value}(args), a variable, or $fn(args); attribute
// values are literals, $(expr) (a float), $int(expr) or @label.name (copied from a matched node).
std::unique_ptr<Replacement> ParseReplacement(std::string_view text);

}  // namespace kiln::fusion
