#include "support/page_advice.h"

#include <sys/mman.h>

#include <cstdint>

namespace kiln {

void PrefaultForWrite(void* data, size_t n) {
  constexpr uintptr_t kPage = 4096, kHuge = uintptr_t{2} << 20;
  const auto begin = reinterpret_cast<uintptr_t>(data), end = begin + n;
  // madvise takes page-aligned ranges: only the pages wholly inside the block are advised, never a neighbour's.
  const uintptr_t huge_begin = (begin + kHuge - 1) / kHuge * kHuge, huge_end = end / kHuge * kHuge;
  if (huge_end > huge_begin) ::madvise(reinterpret_cast<void*>(huge_begin), huge_end - huge_begin, MADV_HUGEPAGE);
#ifdef MADV_POPULATE_WRITE
  const uintptr_t page_begin = (begin + kPage - 1) / kPage * kPage, page_end = end / kPage * kPage;
  if (page_end > page_begin) ::madvise(reinterpret_cast<void*>(page_begin), page_end - page_begin, MADV_POPULATE_WRITE);
#endif
}

}  // namespace kiln
