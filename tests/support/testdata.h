// Locating Debian's libonnx-testdata cases for the suites that sweep them. The suite fails, never skips, when
// the data is missing: `make test` installs it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace kiln::testing {

inline const char* kTestdataRoot = "/usr/share/libonnx-testdata/data";

inline std::vector<std::string> TestdataFolders() { return {"node", "pytorch-converted", "pytorch-operator", "simple"}; }

// Every case directory (holding model.onnx) under one folder, sorted.
inline std::vector<std::filesystem::path> TestdataCases(const std::string& folder) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(kTestdataRoot) / folder, ec))
    if (std::filesystem::exists(e.path() / "model.onnx")) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace kiln::testing
