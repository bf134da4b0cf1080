// Plugin search directories and a pipeline's `plugins:` entries: see plugin_search.h.
#include "plugin/plugin_search.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "pipeline/shipped_pipelines.h"

namespace kiln::plugin {
namespace fs = std::filesystem;

std::vector<fs::path> PluginPathDirectories() {
  std::vector<fs::path> dirs;
  const char* env = std::getenv("KILN_PLUGIN_PATH");
  if (!env) return dirs;
  std::string_view rest(env);
  while (!rest.empty()) {
    size_t colon = rest.find(':');
    std::string_view item = rest.substr(0, colon);
    if (!item.empty()) dirs.emplace_back(std::string(item));
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return dirs;
}

std::vector<fs::path> InstalledPluginDirectories() {
  std::vector<fs::path> dirs;
  auto add = [&](const fs::path& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return;
    fs::path canonical = fs::weakly_canonical(dir, ec);
    if (std::find(dirs.begin(), dirs.end(), canonical) == dirs.end()) dirs.push_back(canonical);
  };
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return dirs;
  add(exe.parent_path().parent_path() / KILN_PLUGIN_INSTALL_DIR);
  // A binary of the build tree (the CLI, a test) also finds the plugins built beside it.
  fs::path build_plugins = KILN_BUILD_PLUGIN_DIR;
  fs::path build_root = fs::weakly_canonical(build_plugins.parent_path().parent_path().parent_path(), ec);
  fs::path exe_dir = fs::weakly_canonical(exe.parent_path(), ec);
  auto [mismatch, unused] = std::mismatch(build_root.begin(), build_root.end(), exe_dir.begin(), exe_dir.end());
  if (!build_root.empty() && mismatch == build_root.end()) add(build_plugins);
  return dirs;
}

std::vector<fs::path> PluginFilesIn(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.size() > 6 && name.rfind("lib", 0) == 0 && name.substr(name.size() - 3) == ".so" &&
        it->is_regular_file(ec))
      files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

bool IsPluginPath(std::string_view entry) {
  return entry.find('/') != std::string_view::npos ||
         (entry.size() > 3 && entry.substr(entry.size() - 3) == ".so");
}

std::vector<std::string> PluginFileNames(std::string_view name) {
  return {"libkiln_" + std::string(name) + ".so", "lib" + std::string(name) + ".so"};
}

namespace {

void ReadPlugins(const fs::path& file, std::set<fs::path>& seen, std::vector<PluginRef>& out) {
  std::error_code ec;
  fs::path identity = fs::weakly_canonical(file, ec);
  if (seen.size() > 64 || !seen.insert(identity.empty() ? file : identity).second) return;  // a cycle
  std::ifstream in(file, std::ios::binary);
  if (!in) return;
  std::ostringstream text;
  text << in.rdbuf();
  YAML::Node root;
  try {
    root = YAML::Load(text.str());
  } catch (const YAML::Exception&) {
    return;
  }
  if (!root.IsMap()) return;
  try {
    if (const YAML::Node parent = root["extends"]; parent && parent.IsScalar())
      ReadPlugins(ExtendsTargetFile(parent.Scalar(), file.parent_path()), seen, out);  // a level or a path
    const YAML::Node plugins = root["plugins"];
    if (!plugins || !plugins.IsSequence()) return;
    for (const YAML::Node& item : plugins) {
      if (!item.IsScalar() || item.Scalar().empty()) continue;
      bool listed = std::any_of(out.begin(), out.end(), [&](const PluginRef& r) { return r.name == item.Scalar(); });
      if (listed) continue;
      YAML::Mark mark = item.Mark();
      out.push_back({item.Scalar(), SourcePos{file.string(), mark.line + 1, mark.column + 1}});
    }
  } catch (const YAML::Exception&) {
  }
}

}  // namespace

std::vector<PluginRef> ReadPipelinePlugins(const fs::path& file) {
  std::vector<PluginRef> out;
  std::set<fs::path> seen;
  ReadPlugins(file, seen, out);
  return out;
}

}  // namespace kiln::plugin
