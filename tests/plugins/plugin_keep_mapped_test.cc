// PluginLibrary::KeepMappedUntilExit, which kiln's command line sets: once set, a library whose PluginLibrary is
// gone stays mapped until the process ends; before, it is closed and unmapped. A test executable of its own: the
// setting is for the rest of the process and cannot be undone, and the two halves run in this order.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>

#include "plugin/plugin_loader.h"

namespace kiln::plugin {
namespace {

// A plugin written in C: glibc never unmaps a library that exports unique symbols (a C++ library's inline variables
// and template statics of default visibility), whatever its handle's owner does.
std::string OptionsPlugin() { return std::string(KILN_TEST_PLUGIN_DIR) + "/libkiln_test_plugin_options.so"; }

bool Mapped(void* address) {
  Dl_info info;
  return dladdr(address, &info) != 0;
}

// The entry point's address, once its PluginLibrary is gone.
void* EntryAfterClosing() {
  std::unique_ptr<PluginLibrary> library = PluginLibrary::Open(OptionsPlugin());
  void* entry = reinterpret_cast<void*>(library->Entry());
  EXPECT_TRUE(Mapped(entry));
  return entry;
}

TEST(PluginLibrary, StaysMappedOnceKeptUntilExit) {
  EXPECT_FALSE(Mapped(EntryAfterClosing())) << "closed and unmapped by default";
  PluginLibrary::KeepMappedUntilExit();
  void* entry = EntryAfterClosing();
  EXPECT_TRUE(Mapped(entry)) << "kept mapped";
  // The library kept is the one loaded: a new handle finds the same code.
  EXPECT_EQ(reinterpret_cast<void*>(PluginLibrary::Open(OptionsPlugin())->Entry()), entry);
}

}  // namespace
}  // namespace kiln::plugin
