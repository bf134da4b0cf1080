// How much memory this process holds: what the compile report records at its phase and step boundaries, so that a
// user can see which pass raises a large model's peak.
#pragma once

#include <cstdint>

namespace kiln {

struct ProcessMemory {
  uint64_t rss_bytes = 0;       // resident now (/proc/self/statm); 0 where the system does not tell
  uint64_t peak_rss_bytes = 0;  // the most ever resident (getrusage's ru_maxrss); 0 where the system does not tell
};

// Both figures; a system call and a read of one small /proc file. The kernel updates its counts in batches of a
// few hundred KiB per thread, which is what they are good to; the peak is the highest either ever showed, so it never
// falls and is never below a resident figure read before it.
ProcessMemory ReadProcessMemory();
// The peak alone: one system call, cheap enough for every step of a compile.
uint64_t PeakRssBytes();

}  // namespace kiln
