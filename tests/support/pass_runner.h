// Running chosen passes on a model in tests, through the real Compiler (plugins from the build tree, options,
// the driver): a pipeline of one stage is written to a temporary YAML file and compiled.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "ir/model.h"

namespace kiln::testing {

struct PassRun {
  nlohmann::json report;  // the compile report (stages, passes, counters)
  bool changed() const;   // did any pass report a change
  // Initializers whose bytes were still to be made (computed constants, ABI 1.10) when the passes ended, before the
  // plugins unloaded and made them whole.
  std::set<std::string> computed;
};

// Runs `passes` (names, optionally with args: "DimensionComputePass{need_fold: false}") as one walk at `level`,
// with `after_walk` passes, and the given session options ("oo.memoryPolicy" -> "MemoryPriority").
PassRun RunPasses(Model& model, const std::vector<std::string>& passes, const std::vector<std::string>& after_walk = {},
                  const std::map<std::string, std::string>& options = {}, const std::string& level = "O1");

// Compiles with a shipped level's pipeline (O0..O3) and session options; RunPasses and RunLevel verify after every
// pass (--verify-each) unless `verify_each` is false.
PassRun RunLevel(Model& model, const std::string& level, const std::map<std::string, std::string>& options = {},
                 bool verify_each = true);

}  // namespace kiln::testing
