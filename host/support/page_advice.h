// Hints to the kernel for a block of this process's memory that is about to be written whole.
#pragma once

#include <cstddef>

namespace kiln {

// Asks for 2 MB pages over the part of [data, data + n) that holds whole 2 MB pages (MADV_HUGEPAGE) and maps every
// page of the block now, in one call (MADV_POPULATE_WRITE), instead of taking a page fault on the first write to
// each 4 KB page: under virtualisation a fault costs microseconds, and a 100 MB block has 25,000 pages. Only pages
// wholly inside the block are advised, so it may be part of a larger allocation (a string's buffer); its contents
// are unchanged. A hint: a kernel without huge pages or MADV_POPULATE_WRITE (Linux < 5.14) faults the pages in on
// first write as before.
void PrefaultForWrite(void* data, size_t n);

}  // namespace kiln
