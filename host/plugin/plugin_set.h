// The plugins of one Compiler: loading them in search order (plugin_search.h), the version negotiation, their
// registrations into the Compiler's registries, and unloading. Libraries stay loaded until the PluginSet is
// destroyed (with its Compiler), which outlives everything they registered there.
//
// Loading one file: the library is opened (rtld_now | rtld_local), its kiln_plugin_entry is called with the
// host table and the host's ABI version, and the descriptor it returns is checked: its size (at least ABI 1.0's),
// its major version (equal to the host's, else an error naming both versions); the negotiated version is the
// smaller minor. Only then is register_plugin called, and only if it succeeds does anything reach the registries.
//
// Duplicates: a file reached twice is loaded once; a second file with a plugin name already loaded is skipped
// (first wins, reported). Two plugins registering the same pass, option, schema, rule pack or target name: the
// first registration wins and the later one is recorded as shadowed (kernels of the same op are both kept, the
// first tried first).
//
// Errors: a plugin named explicitly (--plugin, the pipeline's list) that cannot be loaded is a PluginError (exit
// code 4) naming the file and the problem; one found by scanning KILN_PLUGIN_PATH or the install directory is
// skipped with a warning and listed by `kiln plugins`.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/kernel_registry.h"
#include "options/option_registry.h"
#include "passes/pass_registry.h"
#include "pipeline/pipeline.h"
#include "plugin/host_api.h"
#include "plugin/loaded_plugin.h"
#include "plugin/plugin_registration.h"

namespace kiln::plugin {

struct SkippedPlugin {
  std::string file;
  std::string origin;
  std::string reason;
};

class PluginSet {
 public:
  PluginSet(OptionRegistry& options, PassRegistry& passes, KernelRegistry& kernels);
  ~PluginSet();  // unloads, newest first
  PluginSet(const PluginSet&) = delete;
  PluginSet& operator=(const PluginSet&) = delete;

  // A plugin file, or every lib*.so of a directory (whose plugins' names it then also resolves). Throws
  // PluginError.
  void LoadPath(const std::filesystem::path& path, const std::string& origin = "--plugin");
  // A pipeline's `plugins:` entries. Throws PluginError starting with the entry's file:line:column.
  void LoadPipelinePlugins(const std::vector<PluginRef>& refs);
  // Every plugin of KILN_PLUGIN_PATH's directories, then of the install directory; once per PluginSet.
  void LoadSearchPath();

  const std::vector<std::unique_ptr<LoadedPlugin>>& plugins() const { return plugins_; }
  const LoadedPlugin* Find(std::string_view name) const;
  // The targets in effect (the first registration of each name), in load order, as registered: a deferred one
  // (ABI 1.7) may not be described yet. DescribedTargets describes each first (one that fails keeps its
  // describe_error and stays undescribed). FindTarget: a target by name, described (PluginError when describing it
  // fails), or null.
  std::vector<std::shared_ptr<const PluginTarget>> Targets() const;
  std::vector<std::shared_ptr<const PluginTarget>> DescribedTargets() const;
  std::shared_ptr<const PluginTarget> FindTarget(std::string_view name) const;
  const std::vector<SkippedPlugin>& skipped() const { return skipped_; }
  // Where plugin names are looked for: --plugin directories, KILN_PLUGIN_PATH, the install directory.
  std::vector<std::filesystem::path> SearchDirectories() const;
  const HostServices& services() const { return services_; }

 private:
  // Loads one file (once). Returns null when it was skipped as a second plugin of a name already loaded.
  LoadedPlugin* LoadFile(const std::filesystem::path& file, const std::string& origin);
  void Negotiate(LoadedPlugin& plugin, const KilnPluginDescriptor* d);

  OptionRegistry& options_;
  PassRegistry& passes_;
  KernelRegistry& kernels_;
  KernelRegistry builtin_kernels_;
  HostServices services_;
  PluginNames names_;
  std::vector<std::unique_ptr<LoadedPlugin>> plugins_;
  std::vector<std::unique_ptr<KilnRegistrar>> registrars_;  // closed after registration, kept for stale callers
  std::vector<SkippedPlugin> skipped_;
  std::vector<std::filesystem::path> plugin_dirs_;  // directories given with --plugin
  bool search_path_loaded_ = false;
};

}  // namespace kiln::plugin
