// The heap of the executables that compile models (kiln, bench_warm_compile): mimalloc with 2 MB pages, set up once
// at the start of main. See host/CMakeLists.txt (kiln_allocator) for why; a build without mimalloc (not found, or a
// sanitizer build) leaves the C library's malloc as it is and this does nothing.
#pragma once

namespace kiln {

// Call first thing in main, before any thread starts. MIMALLOC_LARGE_OS_PAGES, MIMALLOC_EAGER_COMMIT_DELAY and
// MIMALLOC_ALLOW_DECOMMIT in the environment take precedence over the choices made here.
void ConfigureAllocator();

}  // namespace kiln
