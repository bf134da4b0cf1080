// Opening a plugin's shared library and finding its entry. The only place in Kiln that includes Boost.DLL:
// libraries are opened with rtld_now | rtld_local (every symbol resolved up front, none leaking into the next
// plugin), and a failure is reported with the dynamic loader's own text.
#pragma once

#include <kiln/kiln_plugin.h>

#include <filesystem>
#include <memory>

namespace kiln::plugin {

class PluginLibrary {
 public:
  // Throws PluginError "plugin file F: cannot be loaded: <dlerror text>".
  static std::unique_ptr<PluginLibrary> Open(const std::filesystem::path& file);
  ~PluginLibrary();  // closes the library
  PluginLibrary(const PluginLibrary&) = delete;
  PluginLibrary& operator=(const PluginLibrary&) = delete;

  // kiln_plugin_entry; throws PluginError naming the file when the library does not export it.
  KilnPluginEntryFn Entry() const;

 private:
  struct Impl;
  explicit PluginLibrary(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  std::filesystem::path file_;
};

}  // namespace kiln::plugin
