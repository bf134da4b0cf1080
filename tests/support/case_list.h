// Lists of test cases with a reason each ("folder/case  # reason" lines), as the conformance suites keep them:
// known failures, tolerances, exceptions. Blank lines and lines starting with # are skipped.
#pragma once

#include <fstream>
#include <map>
#include <string>

namespace kiln::testing {

inline std::map<std::string, std::string> ReadList(const std::string& path) {
  std::map<std::string, std::string> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::string key = line.substr(0, line.find_first_of(" \t"));
    size_t hash = line.find('#');
    out[key] = hash == std::string::npos ? line.substr(key.size()) : line.substr(hash + 1);
  }
  return out;
}

}  // namespace kiln::testing
