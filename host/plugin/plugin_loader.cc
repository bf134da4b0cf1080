// The Boost.DLL side of plugin loading: see plugin_loader.h. Debian's Boost 1.74 needs BOOST_DLL_USE_STD_FS
// (set on this file alone by host/CMakeLists.txt) and ${CMAKE_DL_LIBS}. The entry is taken with
// shared_library::get (a plain function pointer, valid while the library stays open) rather than
// boost::dll::import, which would hold a second handle of its own.
#include "plugin/plugin_loader.h"

#include <dlfcn.h>

#include <atomic>

#include <boost/dll/shared_library.hpp>

#include "support/error.h"

namespace kiln::plugin {

struct PluginLibrary::Impl {
  boost::dll::shared_library library;
};

PluginLibrary::PluginLibrary(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

namespace {
std::atomic<bool> keep_mapped{false};
}  // namespace

void PluginLibrary::KeepMappedUntilExit() { keep_mapped.store(true, std::memory_order_relaxed); }

PluginLibrary::~PluginLibrary() {
  if (impl_) impl_->library.unload();
}

std::unique_ptr<PluginLibrary> PluginLibrary::Open(const std::filesystem::path& file) {
  auto impl = std::make_unique<Impl>();
  std::error_code ec;
  ::dlerror();  // clear any earlier message
  auto mode = boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local;
  // Closed, such a library stays loaded and mapped to the process's end (Boost.DLL passes dlopen's own flags on).
  if (keep_mapped.load(std::memory_order_relaxed))
    mode = static_cast<boost::dll::load_mode::type>(mode | RTLD_NODELETE);
  impl->library.load(file, mode, ec);
  if (ec || !impl->library.is_loaded()) {
    const char* text = ::dlerror();
    throw PluginError("plugin file " + file.string() + " cannot be loaded: " +
                      (text ? std::string(text) : ec.message()));
  }
  std::unique_ptr<PluginLibrary> lib(new PluginLibrary(std::move(impl)));
  lib->file_ = file;
  return lib;
}

KilnPluginEntryFn PluginLibrary::Entry() const {
  if (!impl_->library.has(KILN_PLUGIN_ENTRY_SYMBOL))
    throw PluginError("plugin file " + file_.string() + " does not export " KILN_PLUGIN_ENTRY_SYMBOL
                      " (is it a Kiln plugin? define its entry with KILN_PLUGIN or KILN_PLUGIN_EXPORT)");
  using EntrySignature = KilnStatus*(const KilnHostApi*, uint32_t, const KilnPluginDescriptor**);
  return &impl_->library.get<EntrySignature>(KILN_PLUGIN_ENTRY_SYMBOL);
}

}  // namespace kiln::plugin
