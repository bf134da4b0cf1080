// Every bad input gets one clear message and its documented exit code, never a crash, and no output file.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <random>

#include "cli/run_kiln.h"

namespace kiln {
namespace {

using testing::RunKiln;
namespace fs = std::filesystem;

onnx::ModelProto ReluModel() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto* in = g->add_input();
  in->set_name("x");
  in->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  in->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(4);
  auto* out = g->add_output();
  out->set_name("y");
  out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  auto* n = g->add_node();
  n->set_name("relu");
  n->set_op_type("Relu");
  n->add_input("x");
  n->add_output("y");
  return m;
}

class BadInput : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::TempDir(::testing::UnitTest::GetInstance()->current_test_info()->name()); }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path Write(const std::string& name, const onnx::ModelProto& m) {
    fs::path p = dir_ / name;
    testing::WriteBytes(p, m.SerializeAsString());
    return p;
  }
  // Compiles `model`, expects `rc` and `needle` in the message, and that no output (or temporary) was left.
  void ExpectCompileFails(const fs::path& model, int rc, const std::string& needle) {
    fs::path out = dir_ / "out.onnx";
    auto r = RunKiln("compile " + model.string() + " -o " + out.string() + " --oo.level=O0");
    EXPECT_EQ(r.rc, rc) << r.output;
    EXPECT_NE(r.output.find(needle), std::string::npos) << "message: " << r.output;
    EXPECT_NE(r.output.find("kiln: error: "), std::string::npos) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << "one line: " << r.output;
    EXPECT_FALSE(fs::exists(out));
    for (const auto& e : fs::directory_iterator(dir_))
      EXPECT_EQ(e.path().string().find(".kiln-tmp-"), std::string::npos) << e.path();
  }

  fs::path dir_;
};

TEST_F(BadInput, MissingFile) { ExpectCompileFails(dir_ / "nope.onnx", 2, "no such file"); }

TEST_F(BadInput, Directory) { ExpectCompileFails(dir_, 2, "is a directory"); }

TEST_F(BadInput, EmptyFile) {
  testing::WriteBytes(dir_ / "empty.onnx", "");
  ExpectCompileFails(dir_ / "empty.onnx", 2, "is empty");
}

TEST_F(BadInput, TruncatedModel) {
  std::string bytes = ReluModel().SerializeAsString();
  testing::WriteBytes(dir_ / "t.onnx", bytes.substr(0, bytes.size() / 2));
  ExpectCompileFails(dir_ / "t.onnx", 2, "not a valid ONNX protobuf");
}

TEST_F(BadInput, RandomBytes) {
  std::mt19937 rng(42);
  for (int i = 0; i < 20; ++i) {
    std::string bytes(1024, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    testing::WriteBytes(dir_ / "r.onnx", bytes);
    SCOPED_TRACE(i);
    fs::path out = dir_ / "out.onnx";
    auto r = RunKiln("compile " + (dir_ / "r.onnx").string() + " -o " + out.string() + " --oo.level=O0");
    EXPECT_EQ(r.rc, 2) << r.output;
    EXPECT_FALSE(fs::exists(out));
  }
}

TEST_F(BadInput, NodeReadingAnUndefinedValue) {
  auto m = ReluModel();
  m.mutable_graph()->mutable_node(0)->set_input(0, "ghost");
  ExpectCompileFails(Write("u.onnx", m), 2, "node 'relu' (Relu) reads 'ghost'");
}

TEST_F(BadInput, CyclicGraph) {
  auto m = ReluModel();
  auto* g = m.mutable_graph();
  g->mutable_node(0)->set_input(0, "z");
  auto* n = g->add_node();
  n->set_name("neg");
  n->set_op_type("Neg");
  n->add_input("y");
  n->add_output("z");
  ExpectCompileFails(Write("c.onnx", m), 2, "cycle");
}

TEST_F(BadInput, TenGigabyteTensorInOneKilobyteFile) {
  auto m = ReluModel();
  auto* t = m.mutable_graph()->add_initializer();
  t->set_name("huge");
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(2684354560LL);  // 10 GiB of floats
  t->set_raw_data(std::string(16, '\0'));
  ExpectCompileFails(Write("h.onnx", m), 2, "need 10737418240 bytes, but the data holds 16");
}

// One string per element, as for the other types (the fuzzer found a string tensor with fewer strings than its dims
// say, which a pass then read past the end of).
TEST_F(BadInput, StringTensorWithFewerStringsThanItsDims) {
  auto m = ReluModel();
  auto* t = m.mutable_graph()->add_initializer();
  t->set_name("labels");
  t->set_data_type(onnx::TensorProto::STRING);
  t->add_dims(3);
  t->add_string_data("a");
  ExpectCompileFails(Write("s.onnx", m), 2, "1 strings, but dims [3] hold 3");
}

// An attribute declared INT without its value (the fuzzer found Shape's `end` so: the kernel took its default,
// the folding 0, and the optimised model computed something else): an invalid model, as ONNX's checker says.
TEST_F(BadInput, AnAttributeDeclaredWithoutItsValue) {
  auto m = ReluModel();
  auto* a = m.mutable_graph()->mutable_node(0)->add_attribute();
  a->set_name("alpha");
  a->set_type(onnx::AttributeProto::INT);
  ExpectCompileFails(Write("a.onnx", m), 2, "attribute 'alpha' is declared INT but has no value (field i)");
}

TEST_F(BadInput, ExternalDataPathLeavingTheDirectory) {
  auto m = ReluModel();
  auto* t = m.mutable_graph()->add_initializer();
  t->set_name("w");
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(4);
  t->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* e = t->add_external_data();
  e->set_key("location");
  e->set_value("../secret.bin");
  ExpectCompileFails(Write("x.onnx", m), 2, "leaves the model's directory");
}

TEST_F(BadInput, ExternalDataSizeDisagreesWithFile) {
  auto m = ReluModel();
  auto* t = m.mutable_graph()->add_initializer();
  t->set_name("w");
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(1000);
  t->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* e = t->add_external_data();
  e->set_key("location");
  e->set_value("w.bin");
  testing::WriteBytes(dir_ / "w.bin", std::string(64, '\0'));
  ExpectCompileFails(Write("s.onnx", m), 2, "has 64 bytes");
}

TEST_F(BadInput, OutputEqualToInputIsRefused) {
  fs::path p = Write("m.onnx", ReluModel());
  auto r = RunKiln("compile " + p.string() + " -o " + p.string() + " --oo.level=O0");
  EXPECT_EQ(r.rc, 1) << r.output;
  EXPECT_NE(r.output.find("--in-place"), std::string::npos) << r.output;
  r = RunKiln("compile " + p.string() + " -o " + p.string() + " --oo.level=O0 --in-place");
  EXPECT_EQ(r.rc, 0) << r.output;
}

TEST_F(BadInput, OptionValueRefusedNamesAllowedValues) {
  fs::path p = Write("m.onnx", ReluModel());
  auto r = RunKiln("compile " + p.string() + " -o " + (dir_ / "o.onnx").string() + " --oo.constantFolding=maybe");
  EXPECT_EQ(r.rc, 3) << r.output;
  EXPECT_NE(r.output.find("oo.constantFolding"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("true, false"), std::string::npos) << r.output;
  r = RunKiln("compile " + p.string() + " -o " + (dir_ / "o.onnx").string() + " --oo.constantFoldin=true");
  EXPECT_EQ(r.rc, 3) << r.output;
  EXPECT_NE(r.output.find("did you mean 'oo.constantFolding'"), std::string::npos) << r.output;
}

TEST_F(BadInput, UnwritableOutputLeavesNothing) {
  fs::path p = Write("m.onnx", ReluModel());
  auto r = RunKiln("compile " + p.string() + " -o " + (dir_ / "no" / "such" / "dir.onnx").string() + " --oo.level=O0");
  EXPECT_EQ(r.rc, 1) << r.output;
  EXPECT_NE(r.output.find("cannot write"), std::string::npos) << r.output;
  // The output is opened before the model is read: a compile that could never be written does no work.
  r = RunKiln("compile " + (dir_ / "absent.onnx").string() + " -o " + (dir_ / "no" / "dir.onnx").string());
  EXPECT_EQ(r.rc, 1) << r.output;
  EXPECT_NE(r.output.find("dir.onnx: cannot write"), std::string::npos) << r.output;
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), {}), 1) << "only m.onnx";
}

TEST_F(BadInput, UsageErrors) {
  EXPECT_EQ(RunKiln("").rc, 1);
  EXPECT_EQ(RunKiln("compile").rc, 1);
  EXPECT_EQ(RunKiln("frobnicate").rc, 1);
  EXPECT_EQ(RunKiln("--help").rc, 0);
}

}  // namespace
}  // namespace kiln
