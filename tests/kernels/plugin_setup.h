// Loads the in-tree kernels plugin (build/lib/kiln/plugins/libkiln_kernels.so) into a Compiler for tests.
#pragma once

namespace kiln {
class Compiler;
void LoadKernelPluginsForTests(Compiler& compiler);
}  // namespace kiln
