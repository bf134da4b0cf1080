// ABI 1.10's computed constants through the `kiln` binary and the test plugin tests/plugins/plugins/computed_plugin.cc:
// a constant a pass makes computable is written with the values its computation gives (streamed to the file in
// pieces: the weight here is larger than one), a range of it reads back through the host, and a computation that
// fails fails the compile when the model is written: exit code 4, the constant and the plugin's message named, no
// output left behind. Nothing is made twice: the process ends without making the constant whole.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "cli/run_kiln.h"

namespace kiln::testing {
namespace {
namespace fs = std::filesystem;

const std::string kPlugin = std::string(KILN_TEST_PLUGIN_DIR) + "/libkiln_test_plugin_computed.so";
constexpr int64_t kCount = 300'000;  // 1.2 MB: several of the writer's pieces

float Weight(int64_t i) { return static_cast<float>(i % 977) * 0.25f - 3.0f; }

class ComputedCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    onnx::ModelProto m;
    m.set_ir_version(8);
    m.add_opset_import()->set_version(17);
    auto* g = m.mutable_graph();
    g->set_name("g");
    for (const char* name : {"x", "y"}) {
      auto* v = name[0] == 'x' ? g->add_input() : g->add_output();
      v->set_name(name);
      v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
      v->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(kCount);
    }
    auto* add = g->add_node();
    add->set_op_type("Add");
    add->add_input("x");
    add->add_input("w");
    add->add_output("y");
    auto* w = g->add_initializer();
    w->set_name("w");
    w->set_data_type(onnx::TensorProto::FLOAT);
    w->add_dims(kCount);
    std::string bytes(static_cast<size_t>(kCount) * sizeof(float), '\0');
    for (int64_t i = 0; i < kCount; ++i) {
      float v = Weight(i);
      std::memcpy(bytes.data() + i * 4, &v, 4);
    }
    w->set_raw_data(bytes);
    std::ofstream(dir_ / "model.onnx", std::ios::binary) << m.SerializeAsString();
  }
  void TearDown() override { fs::remove_all(dir_); }

  KilnRun Compile(const std::string& pass) {
    fs::path p = dir_ / "pipeline.yaml";
    std::ofstream(p) << "level: O0\nstages:\n  - name: Prepare\n    passes: [" << pass << "]\n";
    const std::string kiln = "KILN_TEST_COMPUTE_LOG=" + (dir_ / "computed.log").string() + " " + KILN_BINARY;
    return RunBinary(kiln, "compile " + (dir_ / "model.onnx").string() + " -o " + (dir_ / "out.onnx").string() +
                      " --pipeline " + p.string() + " --plugin " + kPlugin + " --report " +
                      (dir_ / "report.json").string());
  }

  fs::path dir_;
};

TEST_F(ComputedCli, AComputedConstantIsWrittenWithTheValuesItsComputationGives) {
  auto r = Compile("DoubleWeightsPass");
  ASSERT_EQ(r.rc, 0) << r.output;
  std::ifstream in(dir_ / "report.json");
  nlohmann::json report = nlohmann::json::parse(in);
  EXPECT_EQ(report["stages"][0]["passes"][0]["counters"]["doubled"], 1) << report["stages"].dump();

  onnx::ModelProto out;
  std::ifstream f(dir_ / "out.onnx", std::ios::binary);
  ASSERT_TRUE(out.ParseFromIstream(&f));
  ASSERT_EQ(out.graph().initializer_size(), 1);
  const onnx::TensorProto& t = out.graph().initializer(0);
  EXPECT_EQ(t.name(), "w_twice");
  ASSERT_EQ(t.dims_size(), 1);
  EXPECT_EQ(t.dims(0), kCount);
  ASSERT_EQ(t.raw_data().size(), static_cast<size_t>(kCount) * sizeof(float));
  for (int64_t i = 0; i < kCount; ++i) {
    float v;
    std::memcpy(&v, t.raw_data().data() + i * 4, 4);
    ASSERT_EQ(v, 2.0f * Weight(i)) << "element " << i;
  }
  // Each byte was made once, as the writer streamed it, besides the two elements the pass read back: none again
  // as the plugin unloaded at the end of the process.
  std::ifstream log(dir_ / "computed.log");
  size_t made = 0, calls = 0;
  for (size_t bytes; log >> bytes; ++calls) made += bytes;
  EXPECT_GT(calls, 1u) << "streamed in one piece";
  EXPECT_EQ(made, static_cast<size_t>(kCount) * sizeof(float) + 2 * sizeof(float));
}

TEST_F(ComputedCli, AComputationThatFailsFailsTheCompileWhenTheModelIsWritten) {
  auto r = Compile("FailingComputePass");
  EXPECT_EQ(r.rc, 4) << r.output;
  EXPECT_NE(r.output.find("computed constant 'w_twice'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("the probe cannot compute"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "out.onnx"));
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().string().find("kiln-tmp"), std::string::npos) << e.path();
}

}  // namespace
}  // namespace kiln::testing
