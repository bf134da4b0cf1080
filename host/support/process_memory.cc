#include "support/process_memory.h"

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>

namespace kiln {
namespace {

// The highest figure any reading saw: the kernel counts a thread's pages in batches, so getrusage's peak can lag
// what /proc/self/statm showed resident by a few hundred KiB. Readings stay consistent (a peak never below what was
// resident, never lower than an earlier peak) by keeping the highest.
std::atomic<uint64_t> highest{0};

uint64_t Raise(uint64_t seen) {
  uint64_t h = highest.load(std::memory_order_relaxed);
  while (seen > h && !highest.compare_exchange_weak(h, seen, std::memory_order_relaxed)) {
  }
  return seen > h ? seen : h;
}

}  // namespace

uint64_t PeakRssBytes() {
  struct rusage usage {};
  if (::getrusage(RUSAGE_SELF, &usage) != 0 || usage.ru_maxrss <= 0) return highest.load(std::memory_order_relaxed);
  return Raise(static_cast<uint64_t>(usage.ru_maxrss) * 1024);  // Linux gives KiB
}

ProcessMemory ReadProcessMemory() {
  ProcessMemory m;
  // statm: total program size, then resident set size, in pages.
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    unsigned long long resident = 0;
    if (std::fscanf(f, "%*s %llu", &resident) == 1) {
      const long page = ::sysconf(_SC_PAGESIZE);
      if (page > 0) m.rss_bytes = resident * static_cast<uint64_t>(page);
    }
    std::fclose(f);
  }
  Raise(m.rss_bytes);
  m.peak_rss_bytes = PeakRssBytes();
  return m;
}

}  // namespace kiln
