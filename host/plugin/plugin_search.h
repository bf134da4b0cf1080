// Where Kiln looks for plugins, and the `plugins:` entries of a pipeline file read ahead of the pipeline itself
// (its passes can only be checked once its plugins are loaded).
//
// Search order (the first registration of a name wins, so this is also the order of precedence):
//   1. --plugin PATH: a plugin file, or a directory whose lib*.so are all loaded;
//   2. the pipeline's `plugins:` list: a path (relative to the pipeline file that lists it) is loaded as is; a
//      name such as `folding` is looked for as libkiln_folding.so, then libfolding.so, in the directories of
//      --plugin, of KILN_PLUGIN_PATH, and the install directory;
//   3. every lib*.so in the directories of KILN_PLUGIN_PATH (colon-separated), in order;
//   4. every lib*.so in the install directory, <prefix>/lib/kiln/plugins beside the running binary (and, for a
//      binary run from the build tree, the build tree's lib/kiln/plugins).
// A file reached twice (by any route) is loaded once.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/pipeline.h"

namespace kiln::plugin {

// The directories of KILN_PLUGIN_PATH, in order (those that do not exist included).
std::vector<std::filesystem::path> PluginPathDirectories();
// The install directory beside the running binary, then the build tree's plugin directory when the binary runs
// from the build tree; only those that exist, without repeats.
std::vector<std::filesystem::path> InstalledPluginDirectories();
// The lib*.so files of a directory, sorted by name.
std::vector<std::filesystem::path> PluginFilesIn(const std::filesystem::path& dir);

// True for an entry to use as a path: it has a '/' or ends in ".so".
bool IsPluginPath(std::string_view entry);
// The file names a plugin name is looked for as: libkiln_NAME.so, libNAME.so.
std::vector<std::string> PluginFileNames(std::string_view name);

// The `plugins:` entries of a pipeline file and the files it extends (parents' first, no name twice), with the
// position of each. Best effort: a file that cannot be read or parsed yields what was read so far, and the
// pipeline loader reports the problem afterwards.
std::vector<PluginRef> ReadPipelinePlugins(const std::filesystem::path& file);

}  // namespace kiln::plugin
