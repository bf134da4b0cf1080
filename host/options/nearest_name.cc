// Edit-distance suggestions for unknown names; see nearest_name.h.
#include "options/nearest_name.h"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace kiln {

int EditDistance(std::string_view a, std::string_view b) {
  auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  std::vector<int> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    int diagonal = row[0];
    row[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      int above = row[j];
      int substitute = diagonal + (lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitute});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string NearestName(std::string_view wanted, const std::vector<std::string>& candidates) {
  const int limit = std::max<int>(2, static_cast<int>(wanted.size()) / 3);
  std::string best;
  int best_distance = limit + 1;
  for (const std::string& candidate : candidates) {
    int distance = EditDistance(wanted, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

std::string DidYouMean(std::string_view wanted, const std::vector<std::string>& candidates) {
  std::string nearest = NearestName(wanted, candidates);
  return nearest.empty() ? std::string() : "; did you mean '" + nearest + "'?";
}

std::string JoinNames(const std::vector<std::string>& names, std::string_view separator) {
  std::string out;
  for (const std::string& name : names) {
    if (!out.empty()) out += separator;
    out += name;
  }
  return out;
}

}  // namespace kiln
