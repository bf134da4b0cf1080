// A main for the fuzz harnesses in the normal build (no clang, no libFuzzer): runs LLVMFuzzerTestOneInput once
// on every file named on the command line, or in a folder named there (sorted, so runs are repeatable). Options
// apply to the folders named after them: --only NAME takes only files of that name (model.onnx of the ONNX test
// data); --max-per-dir N takes at most N files of a folder, spread evenly over the sorted list. A harness that
// finds a bug aborts, so the test fails with the file name printed last.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

namespace fs = std::filesystem;

bool RunFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
    return false;
  }
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::fprintf(stderr, "replay: %s (%zu bytes)\n", path.c_str(), bytes.size());
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  size_t max_per_dir = 0;  // 0: all
  std::string only;         // "": every file
  size_t ran = 0;
  bool ok = true;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--max-per-dir" && i + 1 < argc) {
      max_per_dir = std::strtoul(argv[++i], nullptr, 10);
      continue;
    }
    if (arg == "--only" && i + 1 < argc) {
      only = argv[++i];
      continue;
    }
    fs::path p(arg);
    if (!fs::is_directory(p)) {
      ok = RunFile(p) && ok;
      ++ran;
      continue;
    }
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(p))
      if (e.is_regular_file() && (only.empty() || e.path().filename() == only)) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    size_t take = (max_per_dir == 0 || files.size() <= max_per_dir) ? files.size() : max_per_dir;
    for (size_t k = 0; k < take; ++k) {
      ok = RunFile(files[k * files.size() / take]) && ok;
      ++ran;
    }
  }
  std::fprintf(stderr, "replay: %zu inputs, no bug found\n", ran);
  return ok && ran > 0 ? 0 : 1;
}
