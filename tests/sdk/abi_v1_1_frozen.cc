// The ABI 1.1 table (abi_table.h) as the frozen 1.1 header compiles it. This file builds with tests/sdk/abi_v1_1
// (and not sdk/include) on its include path, so <kiln/kiln_plugin.h> below is the byte-exact 1.1 copy.
//
// The header is included inside namespace kiln_abi_v1_1, so that its structs are types of their own and never
// meet the current header's same-named ones (which the rest of kiln_sdk_test uses) in one program; and its entry
// declaration is renamed, because a C function is one entity whatever namespace declares it, and the test binary
// defines the current kiln_plugin_entry (wrapper_test.cc). Neither changes the layout or any type.
#include <stddef.h>
#include <stdint.h>

#include "abi_table.h"

#define kiln_plugin_entry kiln_test_frozen_v1_1_plugin_entry
namespace kiln_abi_v1_1 {
#include <kiln/kiln_plugin.h>
}  // namespace kiln_abi_v1_1

#if KILN_ABI_VERSION_MAJOR != 1 || KILN_ABI_VERSION_MINOR != 1
#error "abi_v1_1_frozen.cc must build against the frozen 1.1 header"
#endif

namespace kiln_test {
#define KILN_HANDLE(T) KILN_TEST_NAME_TYPE(kiln_abi_v1_1::T, T)
#define KILN_STRUCT(T) KILN_TEST_NAME_TYPE(kiln_abi_v1_1::T, T)
#include "abi_v1_1_names.inc"
}  // namespace kiln_test

namespace kiln_abi_v1_1 {
namespace {
std::vector<kiln_test::AbiEntry> Table() {
  return {
#include "abi_v1_1_table.inc"
  };
}
}  // namespace
}  // namespace kiln_abi_v1_1

namespace kiln_test {
std::vector<AbiEntry> FrozenV1_1Table() { return kiln_abi_v1_1::Table(); }
unsigned FrozenV1_1AbiVersion() { return KILN_ABI_VERSION; }
}  // namespace kiln_test
