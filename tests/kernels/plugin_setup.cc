#include "kernels/plugin_setup.h"

#include "compile/compiler.h"

namespace kiln {

void LoadKernelPluginsForTests(Compiler& compiler) {
  compiler.LoadSearchPathPlugins();
}

}  // namespace kiln
