// Executor conformance: every libonnx-testdata case (node, pytorch-converted, pytorch-operator, simple) runs
// through the reference executor on the registered kernels (the kernels plugin first, then the host's built-ins)
// and its outputs are compared with the expected ones (rtol 1e-3, atol 1e-7 as ONNX's runner; wider only where
// conformance_tolerances.txt says so, with the op test's reason). Cases that do not pass yet are listed in
// conformance_known_failures.txt with a reason each; any other failure fails the suite, and so does a listed
// case that now passes (remove it from the list), unless its reason says "random:". KILN_CONFORMANCE_FILTER=<regex> runs only matching cases;
// KILN_UPDATE_KNOWN_FAILURES=1 rewrites the list from this run (review the diff: every entry needs its reason).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "compile/compiler.h"
#include "kernels/conformance.h"
#include "kernels/plugin_setup.h"
#include "support/case_list.h"
#include "support/testdata.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

using kiln::testing::ReadList;

TEST(Conformance, TestdataCasesPassOrAreListed) {
  Compiler compiler;
  LoadKernelPluginsForTests(compiler);
  auto known = ReadList(KILN_TEST_DIR "/conformance_known_failures.txt");
  auto tolerances = ReadList(KILN_TEST_DIR "/conformance_tolerances.txt");
  const char* filter = std::getenv("KILN_CONFORMANCE_FILTER");
  std::regex re(filter ? filter : ".*");
  int passed = 0, total = 0, listed_failing = 0;
  std::ostringstream unexpected, stale, rewritten;
  for (const auto& folder : kiln::testing::TestdataFolders()) {
    for (const auto& dir : kiln::testing::TestdataCases(folder)) {
      const std::string name = folder + "/" + dir.filename().string();
      if (!std::regex_search(name, re)) continue;
      ++total;
      kiln::testing::Tolerance tol;
      if (auto t = tolerances.find(name); t != tolerances.end()) std::istringstream(t->second) >> tol.rtol >> tol.atol;
      auto r = kiln::testing::RunConformanceCase(dir, compiler.kernels(), tol);
      const bool is_known = known.count(name) != 0;
      if (r.passed) {
        ++passed;
        // A random case's draw can match numpy's by chance (test_bernoulli's ten bits now and then): only a
        // deterministic listed case that passes is stale.
        const bool random = is_known && known[name].find("random:") != std::string::npos;
        if (is_known && !random)
          stale << "  " << name << " passes now: remove it from conformance_known_failures.txt\n";
        if (random) rewritten << name << "  # " << known[name].substr(known[name].find_first_not_of(' ')) << "\n";
      } else {
        std::string reason = r.reason.substr(0, r.reason.find('\n'));
        rewritten << name << "  # " << (is_known ? known[name].substr(known[name].find_first_not_of(' ')) : reason) << "\n";
      }
      if (r.passed) {
      } else if (is_known) {
        ++listed_failing;
      } else {
        unexpected << "  " << name << ": " << r.reason << "\n";
      }
    }
  }
  if (const char* u = std::getenv("KILN_UPDATE_KNOWN_FAILURES"); u && std::string(u) == "1" && !filter) {
    std::ofstream out(KILN_TEST_DIR "/conformance_known_failures.txt");
    out << "# Cases of libonnx-testdata that the reference executor does not pass yet, one per line: folder/case  "
           "# reason.\n# The conformance test fails on any failing case not listed here, and on a listed case that "
           "passes, unless its\n# reason says \"random:\" (an output drawn at random may match the expected one by "
           "chance).\n"
        << rewritten.str();
    return;
  }
  std::cout << "conformance: " << passed << " of " << total << " cases pass; " << listed_failing
            << " listed as known failures\n";
  RecordProperty("passed", passed);
  RecordProperty("total", total);
  EXPECT_EQ(unexpected.str(), "") << "cases failing that are not in conformance_known_failures.txt:\n"
                                  << unexpected.str();
  if (!filter) {
    EXPECT_EQ(stale.str(), "") << stale.str();
  }
}

}  // namespace
}  // namespace kiln
