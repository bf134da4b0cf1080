// The shipped pipelines' folder and `extends:` targets; see shipped_pipelines.h.
#include "pipeline/shipped_pipelines.h"

#include <cstdlib>
#include <string>

namespace kiln {
namespace fs = std::filesystem;

fs::path ConfigDir() {
  if (const char* env = std::getenv("KILN_CONFIG_DIR"); env && *env) return env;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path installed = exe.parent_path().parent_path() / "share" / "kiln" / "configs";
    if (fs::exists(installed / "pipelines")) return installed;
  }
  return fs::path(KILN_SOURCE_DIR) / "configs";
}

fs::path ShippedPipelineDir() { return ConfigDir() / "pipelines"; }

fs::path ShippedPipelineFile(OptLevel level) {
  return ShippedPipelineDir() / (std::string(OptLevelName(level)) + ".yaml");
}

fs::path ExtendsTargetFile(std::string_view target, const fs::path& base_dir, const fs::path& shipped_dir) {
  if (std::optional<OptLevel> level = ParseOptLevel(target)) {
    fs::path dir = shipped_dir.empty() ? ShippedPipelineDir() : shipped_dir;
    return dir / (std::string(OptLevelName(*level)) + ".yaml");
  }
  return (base_dir / fs::path(target)).lexically_normal();
}

}  // namespace kiln
