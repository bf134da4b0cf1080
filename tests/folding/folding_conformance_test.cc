// Folding conformance: every libonnx-testdata `node` case, with its graph inputs turned into initializers holding
// the case's test_data_set_0 inputs, compiles at O1 to a graph with no compute node left (no node, or only
// Constant nodes) whose outputs equal the case's expected outputs (rtol 1e-3, atol 1e-7, as the executor
// conformance test). Cases that cannot fold (random ops, sequence- or optional-typed values, ops with subgraphs
// the passes do not fold, outputs beyond the size policy, ...) are listed in folding_conformance_exceptions.txt
// with a reason each; any other failure fails the suite, and so does a listed case that now folds.
// KILN_CONFORMANCE_FILTER=<regex> runs only matching cases; KILN_UPDATE_KNOWN_FAILURES=1 rewrites the list from
// this run (review the diff: every entry needs its reason).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "compile/compiler.h"
#include "exec/compare.h"
#include "exec/executor.h"
#include "exec/value_io.h"
#include "ir/graph.h"
#include "ir/model.h"
#include "kernels/plugin_setup.h"
#include "onnx/onnx_import.h"
#include "support/case_list.h"
#include "support/error.h"
#include "support/pass_runner.h"
#include "support/testdata.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

struct FoldResult {
  bool passed = false;
  std::string reason;
};

// The case's graph inputs become initializers holding test_data_set_0's inputs.
std::string MakeInputsConstant(Model& model, const fs::path& set) {
  Graph& g = model.graph();
  auto required = Executor::RequiredInputs(g);
  for (size_t i = required.size(); i-- > 0;) {
    Value* v = const_cast<Value*>(required[i]);
    fs::path p = set / ("input_" + std::to_string(i) + ".pb");
    if (!fs::exists(p)) return "input " + std::to_string(i) + " ('" + v->name() + "') has no data (optional, omitted)";
    RtValue value = ReadValueFile(p.string(), v->type());
    if (!value.is_tensor()) return "input '" + v->name() + "' is not a tensor (" + Describe(value) + ")";
    auto it = std::find(g.inputs().begin(), g.inputs().end(), v);
    g.RemoveInput(static_cast<size_t>(it - g.inputs().begin()));
    Tensor t = *value.tensor;
    t.set_name(v->name());
    g.SetInitializer(v, std::make_shared<const Tensor>(std::move(t)));
  }
  return "";
}

FoldResult FoldCase(const fs::path& dir, const KernelRegistry& kernels) {
  try {
    auto model = LoadModel((dir / "model.onnx").string());
    const fs::path set = dir / "test_data_set_0";
    std::vector<Type> out_types;
    for (const Value* v : model->graph().outputs()) out_types.push_back(v->type());
    if (std::string why = MakeInputsConstant(*model, set); !why.empty()) return {false, why};
    kiln::testing::RunLevel(*model, "O1");
    std::set<std::string> left;
    for (const auto& n : model->graph().nodes())
      if (!n->is_deleted() && n->op_type() != "Constant") left.insert(n->op_type());
    if (!left.empty()) {
      std::string ops;
      for (const std::string& op : left) ops += (ops.empty() ? "" : ", ") + op;
      return {false, "not folded: " + ops + " left"};
    }
    std::vector<RtValue> outputs = Executor(*model, kernels).Run({});
    for (size_t i = 0; i < out_types.size(); ++i) {
      fs::path p = set / ("output_" + std::to_string(i) + ".pb");
      if (!fs::exists(p)) continue;
      RtValue expected = ReadValueFile(p.string(), out_types[i]);
      Comparison c = CompareValues(expected, outputs.at(i), 1e-3, 1e-7);
      if (!c.match) return {false, "output " + std::to_string(i) + " folds to a wrong value: " + c.message};
    }
    return {true, ""};
  } catch (const std::exception& e) {
    return {false, e.what()};
  }
}

bool IsRandom(const std::string& name) {
  static const std::regex re("bernoulli|random|multinomial|training_dropout");
  return std::regex_search(name, re);
}

TEST(FoldingConformance, NodeCasesFoldOrAreListed) {
  Compiler compiler;
  LoadKernelPluginsForTests(compiler);
  const std::string list_path = KILN_TEST_DIR "/folding_conformance_exceptions.txt";
  auto listed = kiln::testing::ReadList(list_path);
  const char* filter = std::getenv("KILN_CONFORMANCE_FILTER");
  std::regex re(filter ? filter : ".*");
  int folded = 0, total = 0, listed_failing = 0;
  std::ostringstream unexpected, stale, rewritten;
  for (const fs::path& dir : kiln::testing::TestdataCases("node")) {
    const std::string name = "node/" + dir.filename().string();
    if (!std::regex_search(name, re)) continue;
    ++total;
    FoldResult r = FoldCase(dir, compiler.kernels());
    const bool is_listed = listed.count(name) != 0;
    if (r.passed) {
      ++folded;
      if (is_listed) stale << "  " << name << " folds now: remove it from folding_conformance_exceptions.txt\n";
      continue;
    }
    std::string reason = r.reason.substr(0, r.reason.find('\n'));
    if (IsRandom(name)) reason = "random op: not deterministic, never folded";
    rewritten << name << "  # "
              << (is_listed ? listed[name].substr(std::min(listed[name].size(), listed[name].find_first_not_of(' ')))
                            : reason)
              << "\n";
    if (is_listed) ++listed_failing;
    else unexpected << "  " << name << ": " << r.reason << "\n";
  }
  if (const char* u = std::getenv("KILN_UPDATE_KNOWN_FAILURES"); u && std::string(u) == "1" && !filter) {
    std::ofstream out(list_path);
    out << "# libonnx-testdata node cases that do not fold at O1 to constants equal to the expected outputs, one per "
           "line: folder/case  # reason.\n# The folding conformance test fails on any such case not listed here, "
           "and on a listed case that folds.\n"
        << rewritten.str();
    return;
  }
  std::cout << "folding conformance: " << folded << " of " << total << " node cases fold; " << listed_failing
            << " listed as exceptions\n";
  RecordProperty("folded", folded);
  RecordProperty("total", total);
  EXPECT_EQ(unexpected.str(), "") << "cases not folding that are not in folding_conformance_exceptions.txt:\n"
                                  << unexpected.str();
  if (!filter) {
    EXPECT_EQ(stale.str(), "") << stale.str();
  }
}

}  // namespace
}  // namespace kiln
