// Running one libonnx-testdata case (model.onnx, test_data_set_*/input_*.pb, output_*.pb) through the reference
// executor and comparing with the expected outputs. Shared by the executor conformance test and the folding
// conformance test.
#pragma once

#include <filesystem>
#include <string>

#include "kernels/kernel_registry.h"

namespace kiln::testing {

struct CaseResult {
  bool passed = false;
  std::string reason;  // why it failed
};

struct Tolerance {
  double rtol = 1e-3, atol = 1e-7;
};

// Runs every test_data_set_* of the case.
CaseResult RunConformanceCase(const std::filesystem::path& case_dir, const KernelRegistry& kernels, Tolerance tol);

}  // namespace kiln::testing
