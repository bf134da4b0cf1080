// kiln run and kiln verify: outputs as ONNX test data, input checks with exit code 2, verify's exit codes.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <fstream>

#include "cli/run_kiln.h"

namespace kiln {
namespace {

using testing::RunKiln;
namespace fs = std::filesystem;

const std::string kCase = "/usr/share/libonnx-testdata/data/node/test_conv_with_strides_padding";
const std::string kSample = std::string(KILN_SOURCE_DIR) + "/examples/sample/model.onnx";

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

TEST(RunCommand, WritesTheExpectedOutputs) {
  auto dir = testing::TempDir("run_ok");
  auto r = RunKiln("run " + kCase + "/model.onnx --inputs-dir " + kCase + "/test_data_set_0 --output-dir " + dir.string());
  ASSERT_EQ(r.rc, 0) << r.output;
  onnx::TensorProto got, want;
  ASSERT_TRUE(got.ParseFromString(Slurp(dir / "output_0.pb")));
  ASSERT_TRUE(want.ParseFromString(Slurp(kCase + "/test_data_set_0/output_0.pb")));
  EXPECT_EQ(got.name(), "y");
  EXPECT_EQ(std::vector<int64_t>(got.dims().begin(), got.dims().end()),
            std::vector<int64_t>(want.dims().begin(), want.dims().end()));
  fs::remove_all(dir);
}

TEST(RunCommand, MissingExtraAndMistypedInputsExit2NamingThem) {
  auto dir = testing::TempDir("run_bad");
  auto r = RunKiln("run " + kCase + "/model.onnx --output-dir " + dir.string());
  EXPECT_EQ(r.rc, 2) << r.output;
  EXPECT_NE(r.output.find("input 'x' (input_0.pb) is missing"), std::string::npos) << r.output;

  fs::create_directories(dir / "in");
  for (int i = 0; i < 2; ++i)
    fs::copy_file(kCase + "/test_data_set_0/input_" + std::to_string(i) + ".pb", dir / "in" / ("input_" + std::to_string(i) + ".pb"));
  fs::copy_file(kCase + "/test_data_set_0/input_0.pb", dir / "in" / "input_2.pb");
  r = RunKiln("run " + kCase + "/model.onnx --inputs-dir " + (dir / "in").string() + " --output-dir " + dir.string());
  EXPECT_EQ(r.rc, 2) << r.output;
  EXPECT_NE(r.output.find("extra input"), std::string::npos) << r.output;

  r = RunKiln("run " + kCase + "/model.onnx --input W=" + kCase + "/test_data_set_0/input_0.pb --input x=" + kCase +
              "/test_data_set_0/input_0.pb --output-dir " + dir.string());
  EXPECT_EQ(r.rc, 2) << r.output;
  EXPECT_NE(r.output.find("input 'W'"), std::string::npos) << r.output;
  fs::remove_all(dir);
}

TEST(VerifyCommand, IdenticalModelsMatchAndAChangedWeightDoesNot) {
  auto r = RunKiln("verify " + kSample + " " + kSample + " --dim batch=2 --seed 3");
  EXPECT_EQ(r.rc, 0) << r.output;
  EXPECT_NE(r.output.find("logits: match"), std::string::npos) << r.output;

  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(Slurp(kSample)));
  for (auto& t : *m.mutable_graph()->mutable_initializer())
    if (t.name() == "fc.bias") t.set_raw_data(std::string(t.raw_data().size(), '\x40'));  // 3.0039 in each float
  auto dir = testing::TempDir("verify");
  std::ofstream(dir / "changed.onnx", std::ios::binary) << m.SerializeAsString();
  r = RunKiln("verify " + kSample + " " + (dir / "changed.onnx").string() + " --dim batch=1");
  EXPECT_EQ(r.rc, 5) << r.output;
  EXPECT_NE(r.output.find("logits: MISMATCH"), std::string::npos) << r.output;
  r = RunKiln("verify " + kSample + " " + kSample);
  EXPECT_EQ(r.rc, 1) << r.output;
  EXPECT_NE(r.output.find("--dim batch=VALUE"), std::string::npos) << r.output;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kiln
