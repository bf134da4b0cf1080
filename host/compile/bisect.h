// kiln bisect: which pass made an optimised model compute something else. The resolved pipeline runs on the model
// as `kiln compile` would run it, and after every step (a walk of node passes, or a graph pass) the reference
// executor runs the model on the same inputs and compares its outputs with the input model's (as `kiln verify`
// does: |a - e| <= atol + rtol * |e|). At the first step whose outputs differ, the pipeline is run again from
// the start and, inside that step, checked after every change a pass call made, which names the pass and the node
// it ran on (a walk interleaves its passes node by node). The models just before and just after that change are
// written, and run side by side: the first node, in the after-model's topological order, whose output differs
// from the before-model's value of the same name is the first diverging node; when no value shared by name
// differs, the first diverging graph output is named instead.
//
// A pass is found whether it is the host's or a plugin's: the checks hang on the driver's hooks
// (CompileRequest::after_step, after_change), not on any pass.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compile/compiler.h"
#include "exec/compare.h"

namespace kiln {

struct BisectRequest {
  std::string inputs_dir;                   // input_<i>.pb files, as kiln run reads them; "" for random inputs
  uint64_t seed = 0;                        // random inputs (exec/input_feed.h)
  std::map<std::string, int64_t> dims;      // symbolic dims of random inputs
  double rtol = 1e-3, atol = 1e-5;  // kiln verify's defaults
  std::filesystem::path dump_dir;   // where before.onnx and after.onnx go (created)
};

struct BisectFinding {
  std::string stage;                       // the stage of the diverging step
  std::vector<std::string> step_passes;    // the passes of that step
  std::string pass;                        // the pass whose change diverged ("" when only the step is known)
  std::string changed_node;                // the node that pass call ran on ("" for an after-walk hook or a graph pass)
  std::string why;                         // the first graph output that differs and how, or why the model failed to run
  std::optional<std::string> first_node;   // "'name' (Op)" of the first diverging node, with `first_value`
  std::string first_value;
  std::string first_value_detail;          // the comparison of that value
  std::filesystem::path before, after;     // the dumped models
};

struct BisectResult {
  size_t steps = 0;    // steps checked
  size_t changes = 0;  // pass calls checked inside the diverging step
  std::optional<BisectFinding> finding;
};

// Runs `resolved` on the model at `model_path` (loaded, limit-checked and inference-checked as kiln compile does).
// Throws kiln::Error for an invalid model or inputs (exit 2), a pass failing under --strict, or a reference model
// the executor cannot run.
BisectResult Bisect(Compiler& compiler, const std::string& model_path, const ResolvedPipeline& resolved,
                    const CompileRequest& request, const BisectRequest& bisect);

}  // namespace kiln
