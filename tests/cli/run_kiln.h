// Runs the built `kiln` binary (path from CMake) and captures its exit code and combined output.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace kiln::testing {

struct KilnRun {
  int rc;
  std::string output;
};

// Runs `binary` (a copy of kiln, say) with `args` through the shell.
inline KilnRun RunBinary(const std::string& binary, const std::string& args) {
  std::string cmd = binary + " " + args + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int status = ::pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out};
}

inline KilnRun RunKiln(const std::string& args) { return RunBinary(KILN_BINARY, args); }

// A fresh empty directory for one test.
inline std::filesystem::path TempDir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("kiln_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline void WriteBytes(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary) << bytes;
}

}  // namespace kiln::testing
