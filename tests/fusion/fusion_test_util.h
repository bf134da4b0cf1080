// Helpers for the fusion tests (tests/fusion): running PatternFusionPass the way O2's Autofuse stage does, reading
// the candidates it reports, the fused calls and their bodies, and running a model on the reference executor.
//
// What. RunPatternFusion compiles a model through the real Compiler with a one-stage pipeline at O2:
// `Autofuse: [InferShapePass, PatternFusionPass, DeadCodeEliminationPass]` (plugins folding and fusion), so that
// shapes are known to the rules' predicates and the constants and functions the fusion left unused are removed.
// Why. The golden tests compare graphs before and after in ONNX text (support/golden.h), whose printer shows
// neither a node's domain nor the initializers: the fused calls, the function bodies and the constants are checked
// through these helpers instead.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ir/model.h"

namespace kiln::testing {

// Runs the Autofuse-like stage on `model`; `options` are session options ("fusion.disabledRules" -> "silu").
// Returns the compile report. Throws what the compile throws (kiln::Error).
// `verify`: check the model after each pass (strict), as the other pass tests do.
nlohmann::json RunPatternFusion(Model& model, const std::map<std::string, std::string>& options = {},
                                bool verify = true);

// One candidate as PatternFusionPass reported it (reports.candidates of the pass).
struct ReportedCandidate {
  std::string rule, pack, root, decision, reason;
  std::vector<std::string> nodes;
};
std::vector<ReportedCandidate> Candidates(const nlohmann::json& report);
// The candidates of one rule.
std::vector<ReportedCandidate> CandidatesOf(const nlohmann::json& report, const std::string& rule);
// "rule: decision (reason)" lines, for failure messages.
std::string DescribeCandidates(const nlohmann::json& report);

// The model's nodes of domain kiln.fused in the main graph, as "Name(op)" in topological order of the export.
std::vector<std::string> FusedCalls(const Model& model);
// The body of the function `name` of `domain` as its op types in order ("Pow ReduceMean Add"); "<none>" when the
// model has no such function. Constant nodes are listed too.
std::string FunctionBodyOps(const Model& model, const std::string& name, const std::string& domain = "kiln.fused");
// The main graph's op types in order, domain-qualified when not ONNX's ("Sub kiln.fused.LayerNorm Add").
std::string MainGraphOps(const Model& model);

// The main graph's initializers, one "name: type[dims] {values}" line each, in name order (the golden text
// leaves them out).
std::string InitializerText(const Model& model);

// Runs the model on the reference executor with the builtin kernels and the kernel plugin, feeding every
// required input deterministic data made from `seed` (floats in [-2, 2], integers in [0, 3], booleans
// alternating). Returns the outputs, each as doubles with its dims.
struct Output {
  std::vector<int64_t> dims;
  std::vector<double> values;
};
std::vector<Output> Execute(const Model& model, unsigned seed = 1);
// Whether two runs agree: the same count, dims and values within atol + rtol * |expected|.
::testing::AssertionResult SameOutputs(const std::vector<Output>& expected, const std::vector<Output>& actual,
                                       double rtol = 1e-5, double atol = 1e-5);

}  // namespace kiln::testing
