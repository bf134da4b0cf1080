// kiln's heap options (host/support/allocator_setup.cc): set before the first allocation, so mimalloc reports them as
// they were chosen when it starts, and each left to the environment where it sets one. Built only where kiln links
// mimalloc (KILN_HEAP_MIMALLOC, from kiln_allocator's definitions).
#include <gtest/gtest.h>

#include <string>

#include "cli/run_kiln.h"

#if KILN_HEAP_MIMALLOC
namespace kiln {
namespace {

// What mimalloc prints of one option at its start with MIMALLOC_VERBOSE=1.
std::string Option(const std::string& name, int value) {
  return "mimalloc: option '" + name + "': " + std::to_string(value) + "\n";
}

TEST(HeapOptions, SetBeforeTheFirstAllocation) {
  // RunBinary runs the command through the shell: the assignments before it set its environment.
  auto r = testing::RunBinary("MIMALLOC_VERBOSE=1 " KILN_BINARY, "--version");
  ASSERT_EQ(r.rc, 0) << r.output;
  EXPECT_NE(r.output.find(Option("large_os_pages", 1)), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(Option("eager_commit_delay", 0)), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(Option("allow_decommit", 0)), std::string::npos) << r.output;
}

TEST(HeapOptions, TheEnvironmentWinsInEitherCase) {
  auto r = testing::RunBinary(
      "MIMALLOC_VERBOSE=1 mimalloc_large_os_pages=0 MIMALLOC_EAGER_COMMIT_DELAY=2 MIMALLOC_ALLOW_DECOMMIT=1 " KILN_BINARY,
      "--version");
  ASSERT_EQ(r.rc, 0) << r.output;
  EXPECT_NE(r.output.find(Option("large_os_pages", 0)), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(Option("eager_commit_delay", 2)), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(Option("allow_decommit", 1)), std::string::npos) << r.output;
}

}  // namespace
}  // namespace kiln
#endif
