// The inputs of a run: read from ONNX test-data files (input_0.pb, ... in graph-input order, or NAME=FILE), or
// made up from the declared types and shapes (seeded), and checked against the declarations: a missing, extra or
// mistyped input is a kiln::Error (exit code 2) that names it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kernels/runtime_value.h"

namespace kiln {

class Graph;

struct InputSpec {
  std::string inputs_dir;                        // input_<i>.pb files
  std::map<std::string, std::string> named;      // NAME -> FILE.pb, overriding the directory
  std::map<std::string, int64_t> dims;           // symbolic dimension values for generated inputs
};

// The values for `g`'s required inputs, in order.
std::vector<RtValue> ReadInputs(const Graph& g, const InputSpec& spec);
// Random inputs: floats uniform in [-1, 1), integers in [0, 10), bools fair; symbolic dims from `dims`.
std::vector<RtValue> RandomInputs(const Graph& g, uint64_t seed, const std::map<std::string, int64_t>& dims);

}  // namespace kiln
