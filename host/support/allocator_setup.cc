// ConfigureAllocator: see allocator_setup.h.
#include "support/allocator_setup.h"

#ifdef KILN_WITH_MIMALLOC
#include <mimalloc.h>
#include <sys/mman.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#endif

namespace kiln {

#ifdef KILN_WITH_MIMALLOC
namespace {

// Sets a mimalloc option unless the environment does (mimalloc reads MIMALLOC_<OPTION> itself): the variable wins.
void SetUnlessInEnvironment(const char* variable, mi_option_t option, long value) {
  if (std::getenv(variable) == nullptr) mi_option_set(option, value);
}

// 2 MB pages for the heap (see host/CMakeLists.txt: page faults dominate a compile on a virtual machine), unless
// MIMALLOC_LARGE_OS_PAGES says otherwise. The option covers the memory mimalloc takes from the OS from now on; its
// first segment (32 MB, where a small model's whole compile lives) was taken before main, by the libraries' static
// constructors, so the mapping that holds the heap now is advised too (MADV_HUGEPAGE; pages already touched stay
// small). The generated 10k-node chain's O2 compile: 231 -> 166 ms; 2387 -> 1647 page faults at 1k nodes.
void UseLargePages() {
  // Segments committed whole when taken (mimalloc commits a thread's first segments piece by piece by default):
  // a piece smaller than 2 MB cannot get a huge page, and each costs its own faults. 1k chain: 1624 -> 761 page
  // faults; O2 whole process, 7 interleaved runs: ERNIE 44.5 -> 37.6 ms, ResNet-50 113.5 -> 104.2 ms, 100k chain
  // (3 runs) 2390 -> 1912 ms, peak RSS 2 to 6 MB higher (217 MB at 100k).
  SetUnlessInEnvironment("MIMALLOC_EAGER_COMMIT_DELAY", mi_option_eager_commit_delay, 0);
  if (std::getenv("MIMALLOC_LARGE_OS_PAGES") != nullptr) return;
  mi_option_set(mi_option_large_os_pages, 1);
  void* probe = mi_malloc(64);
  const auto at = reinterpret_cast<uintptr_t>(probe);
  // /proc/self/maps: "start-end perms offset dev inode [path]" in address order. The run of adjacent anonymous
  // mappings that holds the heap is advised (a segment is a reserved part and a committed part).
  std::ifstream maps("/proc/self/maps");
  uintptr_t first = 0, last = 0;
  for (std::string line; std::getline(maps, line);) {
    uintptr_t begin = 0, end = 0;
    int path_at = 0;
    if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR " %*s %*s %*s %*s %n", &begin, &end, &path_at) < 2) break;
    const bool anonymous = path_at > 0 && static_cast<size_t>(path_at) >= line.size();
    if (first <= at && at < last && (begin != last || !anonymous)) break;
    if (!anonymous) {
      first = last = 0;
      continue;
    }
    if (begin != last) first = begin;
    last = end;
  }
  if (first <= at && at < last) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
  mi_free(probe);
}

}  // namespace

void ConfigureAllocator() {
  // Freed memory kept, not given back to the OS: mimalloc decommits a free page 25 ms after it empties, and a
  // compile that frees and allocates as it goes (the protobuf of the nodes already declared while loading; the nodes a
  // pass replaces) then faults the memory in again, zeroed anew, often split out of its 2 MB page. The process ends
  // after one compile, so what is kept costs only where it could not be reused: the 1M-node chain's O2 peak RSS
  // 1622-1636 MB either way, 21.6 -> 20.6 s (medians of 3; its load 3.4 -> 1.7 s in one); the 100k chain's page
  // faults 1550 -> 1071 and CPU time 1287 -> 1215 ms, ResNet-50's 110 -> 100 ms, the 1k chain's 69 -> 54 ms (perf
  // stat, 7 runs each).
  SetUnlessInEnvironment("MIMALLOC_ALLOW_DECOMMIT", mi_option_allow_decommit, 0);
  UseLargePages();
}
#else
void ConfigureAllocator() {}
#endif

}  // namespace kiln
