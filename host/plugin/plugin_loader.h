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
  ~PluginLibrary();  // closes the library (which leaves it mapped where KeepMappedUntilExit() was called first)
  PluginLibrary(const PluginLibrary&) = delete;
  PluginLibrary& operator=(const PluginLibrary&) = delete;

  // kiln_plugin_entry; throws PluginError naming the file when the library does not export it.
  KilnPluginEntryFn Entry() const;

  // For a process that ends once its plugins are done with (kiln, the command line): a library opened from now on
  // is opened never to be unloaded (RTLD_NODELETE), so closing it leaves it mapped until the process ends.
  // Everything of a plugin the host owns is still released first (registrations' user data, computed constants'
  // state: see PluginSet); only the unmapping and the library's own static destructors are left out, which the
  // process's end makes moot: unmapping the six shipped plugins took 0.5 ms of a 25 ms compile of a small model. A
  // session of the embedding API, which may load a plugin file again after it changed, never calls this.
  static void KeepMappedUntilExit();

 private:
  struct Impl;
  explicit PluginLibrary(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  std::filesystem::path file_;
};

}  // namespace kiln::plugin
