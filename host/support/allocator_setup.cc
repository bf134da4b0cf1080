// The heap of the executables that compile models (kiln, bench_warm_compile): mimalloc with 2 MB pages, set up
// before anything allocates. See host/CMakeLists.txt (kiln_allocator) for why. Linking kiln_allocator is the whole
// set-up: it adds a function to the executable's .preinit_array, which the dynamic loader runs before any library's
// static constructors, so the heap's first segment, which those constructors take and in which a small model's whole
// compile lives, is taken with these options already set. Nothing needs calling, and a build without mimalloc (not
// found, or a sanitizer build) leaves the C library's malloc as it is.
//
// The options, each left to the environment when it sets it (mimalloc reads MIMALLOC_<OPTION> itself):
// - large_os_pages: 2 MB pages (MADV_HUGEPAGE) for the memory mimalloc maps;
// - eager_commit_delay 0: segments committed whole when taken, so that each can get 2 MB pages;
// - allow_decommit off: freed memory is kept for reuse, not given back to the OS 25 ms after a page empties.
#ifdef KILN_WITH_MIMALLOC
#include <mimalloc.h>

#include <cstddef>
#include <initializer_list>
#include <string_view>

namespace {

// Whether `entry` ("NAME=value") sets `name` (upper case), ignoring case as mimalloc's own lookup does. ASCII
// only: the C library's locale is not set up yet.
bool Sets(std::string_view entry, std::string_view name) {
  if (entry.size() <= name.size() || entry[name.size()] != '=') return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = entry[i];
    if ((c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c) != name[i]) return false;
  }
  return true;
}

// Whether `envp` sets one of `names` (mimalloc knows some options by an older name too).
bool InEnvironment(char** envp, std::initializer_list<std::string_view> names) {
  for (char** e = envp; e != nullptr && *e != nullptr; ++e)
    for (std::string_view name : names)
      if (Sets(*e, name)) return true;
  return false;
}

// Runs from .preinit_array: after relocation, before every library's constructors (mimalloc's own included; setting
// an option only stores it) and so before the first malloc. The C library's environment is not set up yet: the
// loader passes it here.
void SetHeapOptions(int /*argc*/, char** /*argv*/, char** envp) {
  // Page faults dominate a compile on a virtual machine. The 2 MB pages and whole commits used to be set first in
  // main, which covered only memory taken afterwards, and main advised the first segment after the fact: the pages
  // the constructors had touched by then stayed 4 KB (ERNIE's O2 compile faulted 676 times; 462 with this).
  if (!InEnvironment(envp, {"MIMALLOC_EAGER_COMMIT_DELAY"})) mi_option_set(mi_option_eager_commit_delay, 0);
  if (!InEnvironment(envp, {"MIMALLOC_LARGE_OS_PAGES", "MIMALLOC_LARGE_PAGES"}))
    mi_option_set(mi_option_large_os_pages, 1);
  // A compile frees and allocates as it goes (the protobuf of the nodes already declared while loading; the nodes a
  // pass replaces): memory given back would be faulted in again, zeroed anew, often split out of its 2 MB page. The
  // process ends after one compile, so what is kept costs only where it could not be reused.
  if (!InEnvironment(envp, {"MIMALLOC_ALLOW_DECOMMIT"})) mi_option_set(mi_option_allow_decommit, 0);
}

}  // namespace

// An entry of the executable's .preinit_array (kiln_allocator is an object library: only executables link it).
__attribute__((section(".preinit_array"), used)) static void (*const kSetHeapOptions)(int, char**, char**) =
    &SetHeapOptions;
#endif
