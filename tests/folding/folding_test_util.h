// Helpers shared by the folding-family tests: counters from a compile report, node counts, constant values.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/model.h"
#include "support/golden.h"
#include "support/pass_runner.h"

namespace kiln::testing {

// The sum of a pass's counter over the report's stages.
inline int64_t Counter(const PassRun& run, const std::string& pass, const std::string& counter) {
  int64_t total = 0;
  for (const auto& st : run.report["stages"])
    for (const auto& p : st["passes"])
      if (p.value("name", "") == pass && p.contains("counters") && p["counters"].contains(counter))
        total += p["counters"][counter].get<int64_t>();
  return total;
}

inline size_t CountOps(const Model& m, const std::string& op) {
  size_t n = 0;
  for (const auto& node : m.graph().nodes())
    if (!node->is_deleted() && node->op_type() == op) ++n;
  return n;
}

inline size_t NodeCount(const Model& m) { return m.graph().CountNodes(false); }

// The int64 (or float) data of the initializer feeding graph output `i`, or of value `name`.
template <class T>
std::vector<T> ConstValues(const Model& m, const std::string& name) {
  Value* v = m.graph().FindValue(name);
  if (!v || !v->initializer()) return {};
  auto span = v->initializer()->template values<T>();
  return std::vector<T>(span.begin(), span.end());
}

}  // namespace kiln::testing
