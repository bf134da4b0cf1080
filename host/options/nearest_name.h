// "Did you mean" suggestions for unknown names (options, passes, YAML keys, stages): the candidate with the
// smallest case-insensitive edit distance, when it is close enough to be a plausible typo.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kiln {

// Levenshtein distance, ignoring ASCII case.
int EditDistance(std::string_view a, std::string_view b);

// The candidate nearest to `wanted`, or "" when none is within max(2, |wanted| / 3) edits.
std::string NearestName(std::string_view wanted, const std::vector<std::string>& candidates);

// "; did you mean 'x'?" for the nearest candidate, or "" when there is none.
std::string DidYouMean(std::string_view wanted, const std::vector<std::string>& candidates);

// "a, b, c": for messages listing what was expected.
std::string JoinNames(const std::vector<std::string>& names, std::string_view separator = ", ");

}  // namespace kiln
