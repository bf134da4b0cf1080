// The optimisation levels O0..O3 (GE's OoLevel). An option registered at a level is active at that level and
// every higher one; a pipeline file names the level it is for.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace kiln {

enum class OptLevel : int { kO0 = 0, kO1 = 1, kO2 = 2, kO3 = 3 };

inline constexpr int kNumOptLevels = 4;
inline constexpr std::array<OptLevel, kNumOptLevels> kAllOptLevels = {OptLevel::kO0, OptLevel::kO1, OptLevel::kO2,
                                                                      OptLevel::kO3};

inline std::string_view OptLevelName(OptLevel level) {
  static constexpr std::array<std::string_view, kNumOptLevels> kNames = {"O0", "O1", "O2", "O3"};
  return kNames[static_cast<int>(level)];
}

// "O0".."O3" (also "o2"); nullopt for anything else.
inline std::optional<OptLevel> ParseOptLevel(std::string_view text) {
  if (text.size() != 2 || (text[0] != 'O' && text[0] != 'o') || text[1] < '0' || text[1] > '3') return std::nullopt;
  return static_cast<OptLevel>(text[1] - '0');
}

}  // namespace kiln
