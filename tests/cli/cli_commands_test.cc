// The subcommands' happy paths: info, options, passes, compile at O0 (lossless, report written, dumps).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

#include <fstream>

#include "cli/run_kiln.h"

namespace kiln {
namespace {

using testing::RunKiln;
namespace fs = std::filesystem;

const std::string kSample = std::string(KILN_SOURCE_DIR) + "/examples/sample/model.onnx";

TEST(CliCommands, InfoJson) {
  auto r = RunKiln("info " + kSample + " --json");
  ASSERT_EQ(r.rc, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["ir_version"], 8);
  EXPECT_EQ(j["opsets"]["ai.onnx"], 13);
  EXPECT_EQ(j["nodes"], 15);
  EXPECT_EQ(j["op_types"]["Constant"], 3);
  EXPECT_EQ(j["initializers"], 8);
  EXPECT_EQ(j["inputs"][0]["type"], "float[batch,3,32,32]");
}

// A model of several megabytes gets its output prefilled while it compiles (AtomicFile::Prefill): the output is
// still exactly the compiled model, whether it comes out as large as the input (O0) or far smaller (O2 drops the
// unused 6 MB weight).
TEST(CliCommands, ALargeModelsOutputHoldsExactlyTheCompiledModel) {
  auto dir = testing::TempDir("compile_large");
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("g");
  for (const char* name : {"x", "y"}) {
    auto* v = name[0] == 'x' ? g->add_input() : g->add_output();
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    v->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(4);
  }
  auto* n = g->add_node();
  n->set_op_type("Relu");
  n->add_input("x");
  n->add_output("y");
  auto* w = g->add_initializer();
  w->set_name("unused");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(1'500'000);
  std::string bytes(6'000'000, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 13 % 255);
  w->set_raw_data(bytes);
  const fs::path in = dir / "large.onnx";
  testing::WriteBytes(in, m.SerializeAsString());

  const fs::path same = dir / "o0.onnx", small = dir / "o2.onnx";
  auto r = RunKiln("compile " + in.string() + " -o " + same.string() + " --oo.level=O0 --log-level=error");
  ASSERT_EQ(r.rc, 0) << r.output;
  onnx::ModelProto back;
  std::ifstream f(same, std::ios::binary);
  ASSERT_TRUE(back.ParseFromIstream(&f));
  EXPECT_EQ(fs::file_size(same), back.ByteSizeLong());
  ASSERT_EQ(back.graph().initializer_size(), 1);
  EXPECT_EQ(back.graph().initializer(0).raw_data(), bytes);

  r = RunKiln("compile " + in.string() + " -o " + small.string() + " --oo.level=O2 --log-level=error");
  ASSERT_EQ(r.rc, 0) << r.output;
  std::ifstream f2(small, std::ios::binary);
  ASSERT_TRUE(back.ParseFromIstream(&f2));
  EXPECT_EQ(back.graph().initializer_size(), 0);
  EXPECT_EQ(fs::file_size(small), back.ByteSizeLong());
  EXPECT_LT(fs::file_size(small), 4096u);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), {}), 3) << "no temporary file is left";
  fs::remove_all(dir);
}

TEST(CliCommands, OptionsJsonListsCoreOptionsWithLevelDefaults) {
  auto r = RunKiln("options --json");
  ASSERT_EQ(r.rc, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  std::string all = j.dump();
  for (const char* name : {"oo.level", "oo.constantFolding", "oo.deadCodeElimination",
                           "oo.commonSubexpressionElimination", "oo.memoryPolicy", "oo.optimizationSwitch",
                           "oo.disableOptimizations"})
    EXPECT_NE(all.find(name), std::string::npos) << name;
}

TEST(CliCommands, CompileAtO0WritesReportAndDumps) {
  auto dir = testing::TempDir("compile_o0");
  auto out = dir / "out.onnx";
  auto r = RunKiln("compile " + kSample + " -o " + out.string() + " --oo.level=O0 --report " +
                   (dir / "r.json").string() + " --verify-each --log-level=error");
  ASSERT_EQ(r.rc, 0) << r.output;
  EXPECT_TRUE(fs::exists(out));
  std::ifstream in(dir / "r.json");
  auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["level"], "O0");
  EXPECT_EQ(j["nodes_before"], 15);
  EXPECT_EQ(j["nodes_after"], 15);
  bool found = false;
  for (const auto& o : j["options"])
    if (o["name"] == "oo.level") found = o["source"] == "session";
  EXPECT_TRUE(found) << j["options"].dump();
  // The O0 output is the input again.
  auto a = RunKiln("info " + kSample + " --json"), b = RunKiln("info " + out.string() + " --json");
  auto ja = nlohmann::json::parse(a.output), jb = nlohmann::json::parse(b.output);
  ja.erase("model"), jb.erase("model");
  EXPECT_EQ(ja, jb);
  fs::remove_all(dir);
}

TEST(CliCommands, ExternalDataThresholdWritesAndReadsBack) {
  auto dir = testing::TempDir("external");
  auto out = dir / "ext.onnx";
  auto r = RunKiln("compile " + kSample + " -o " + out.string() + " --oo.level=O0 --external-data-threshold 1024");
  ASSERT_EQ(r.rc, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir / "ext.onnx.data"));
  EXPECT_LT(fs::file_size(out), 8192u);  // the 80 KB of weights went to the data file
  auto back = dir / "back.onnx";
  r = RunKiln("compile " + out.string() + " -o " + back.string() + " --oo.level=O0");
  ASSERT_EQ(r.rc, 0) << r.output;  // external tensors stay external on the way through
  EXPECT_TRUE(fs::exists(dir / "back.onnx.data"));
  auto a = nlohmann::json::parse(RunKiln("info " + kSample + " --json").output);
  auto b = nlohmann::json::parse(RunKiln("info " + back.string() + " --json").output);
  EXPECT_EQ(a["initializer_bytes"], b["initializer_bytes"]);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kiln
