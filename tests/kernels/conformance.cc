#include "kernels/conformance.h"

#include <algorithm>

#include "exec/compare.h"
#include "exec/executor.h"
#include "exec/value_io.h"
#include "ir/model.h"
#include "onnx/onnx_import.h"
#include "support/error.h"

namespace kiln::testing {
namespace fs = std::filesystem;

CaseResult RunConformanceCase(const fs::path& dir, const KernelRegistry& kernels, Tolerance tol) {
  CaseResult r;
  try {
    auto model = LoadModel((dir / "model.onnx").string());
    Executor exec(*model, kernels);
    auto required = Executor::RequiredInputs(model->graph());
    std::vector<fs::path> sets;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(e.path());
    std::sort(sets.begin(), sets.end());
    if (sets.empty()) return {false, "no test_data_set"};
    for (const fs::path& set : sets) {
      std::vector<RtValue> inputs;
      for (size_t i = 0; i < required.size(); ++i) {
        fs::path p = set / ("input_" + std::to_string(i) + ".pb");
        inputs.push_back(fs::exists(p) ? ReadValueFile(p.string(), required[i]->type()) : RtValue::None());
      }
      std::vector<RtValue> outputs = exec.Run(inputs);
      const auto& decl = model->graph().outputs();
      for (size_t i = 0; i < decl.size(); ++i) {
        fs::path p = set / ("output_" + std::to_string(i) + ".pb");
        if (!fs::exists(p)) continue;
        RtValue expected = ReadValueFile(p.string(), decl[i]->type());
        Comparison c = CompareValues(expected, outputs[i], tol.rtol, tol.atol);
        if (!c.match) return {false, "output " + std::to_string(i) + " ('" + decl[i]->name() + "'): " + c.message};
      }
    }
    r.passed = true;
  } catch (const Error& e) {
    r.reason = e.what();
  } catch (const std::exception& e) {
    r.reason = std::string("exception: ") + e.what();
  }
  return r;
}

}  // namespace kiln::testing
