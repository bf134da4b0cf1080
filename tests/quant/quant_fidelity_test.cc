// Quantized models against ONNX Runtime: every model under tests/quant/data (made by gen_quant_models.py, with
// ORT 1.30's outputs committed beside its inputs; qmatmul_rows, which ORT refuses, has numpy's by the spec)
// runs through `kiln run`, and through `kiln compile
// --oo.level=O2` then `kiln run`, and each output must agree with ORT's within atol 1e-5 + rtol 1e-4 x |ort|
// (numpy's allclose). For the uint8 / int8 outputs that bound is below 1, so they must be equal. The worst
// difference per output (at the element furthest past the tolerance) is printed, so the log says how close
// Kiln is, not only that it passed.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "cli/run_kiln.h"
#include "exec/compare.h"
#include "exec/value_io.h"
#include "ir/model.h"
#include "onnx/onnx_import.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

constexpr double kAtol = 1e-5, kRtol = 1e-4;

std::vector<std::string> ModelNames() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(KILN_QUANT_DATA_DIR))
    if (fs::exists(e.path() / "model.onnx")) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Compares the outputs `kiln run` wrote to `got` with ORT's, output by output.
void ExpectOutputsMatch(const fs::path& model_dir, const fs::path& got, const std::string& label) {
  auto model = LoadModel((model_dir / "model.onnx").string());
  const auto& outs = model->graph().outputs();
  ASSERT_FALSE(outs.empty());
  for (size_t i = 0; i < outs.size(); ++i) {
    const std::string file = "output_" + std::to_string(i) + ".pb";
    const fs::path want = model_dir / "test_data_set_0" / file;
    ASSERT_TRUE(fs::exists(want)) << want;
    ASSERT_TRUE(fs::exists(got / file)) << label << ": kiln wrote no " << file;
    RtValue e = ReadValueFile(want.string(), outs[i]->type());
    RtValue a = ReadValueFile((got / file).string(), outs[i]->type());
    Comparison c = CompareValues(e, a, kRtol, kAtol);
    std::cout << label << " " << outs[i]->name() << ": |kiln - expected| at the worst element = " << c.worst_abs << "\n";
    EXPECT_TRUE(c.match) << label << " output " << i << " ('" << outs[i]->name() << "'): " << c.message;
  }
}

class QuantFidelity : public ::testing::TestWithParam<std::string> {};

TEST_P(QuantFidelity, KilnRunMatchesOrt) {
  const fs::path dir = fs::path(KILN_QUANT_DATA_DIR) / GetParam();
  const fs::path work = testing::TempDir("quant_run_" + GetParam());
  auto r = testing::RunKiln("run " + (dir / "model.onnx").string() + " --inputs-dir " +
                            (dir / "test_data_set_0").string() + " --output-dir " + work.string());
  ASSERT_EQ(r.rc, 0) << r.output;
  ExpectOutputsMatch(dir, work, GetParam() + " O0");
  fs::remove_all(work);
}

TEST_P(QuantFidelity, O2CompiledModelMatchesOrt) {
  const fs::path dir = fs::path(KILN_QUANT_DATA_DIR) / GetParam();
  const fs::path work = testing::TempDir("quant_o2_" + GetParam());
  const fs::path opt = work / "model.o2.onnx";
  auto r = testing::RunKiln("compile " + (dir / "model.onnx").string() + " -o " + opt.string() + " --oo.level=O2");
  ASSERT_EQ(r.rc, 0) << r.output;
  r = testing::RunKiln("run " + opt.string() + " --inputs-dir " + (dir / "test_data_set_0").string() +
                       " --output-dir " + work.string());
  ASSERT_EQ(r.rc, 0) << r.output;
  ExpectOutputsMatch(dir, work, GetParam() + " O2");
  fs::remove_all(work);
}

INSTANTIATE_TEST_SUITE_P(Models, QuantFidelity, ::testing::ValuesIn(ModelNames()),
                         [](const auto& info) { return info.param; });

TEST(QuantFidelityData, EveryGeneratedModelIsPresent) {
  // The generator's list (gen_quant_models.py --list) as committed; a model dropped from data/ fails here.
  EXPECT_EQ(ModelNames(), (std::vector<std::string>{"dyn_cnn", "qdq_axis", "qmatmul_rows", "resize_linear", "static_cnn"}));
}

}  // namespace
}  // namespace kiln
