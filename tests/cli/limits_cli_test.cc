// Every resource limit (host/compile/resource_limits.h) through the `kiln` binary: its exit code, its message
// (naming the option), and no output file left behind when the compile stops. The input model's limits stop the
// compile with exit code 2; the passes' limits roll the pass back with a warning, or stop with exit code 4 under
// --strict.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>

#include "cli/run_kiln.h"

namespace kiln {
namespace {

using testing::RunKiln;
namespace fs = std::filesystem;

onnx::ValueInfoProto* Declare(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list, const std::string& name,
                              int elem_type, std::vector<int64_t> dims) {
  auto* v = list->Add();
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem_type);
  for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
  return v;
}

void AddFloats(onnx::GraphProto* g, const std::string& name, size_t n, float value) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(static_cast<int64_t>(n));
  for (size_t i = 0; i < n; ++i) t->add_float_data(value);
}

onnx::NodeProto* AddNode(onnx::GraphProto* g, const std::string& name, const std::string& op,
                         std::vector<std::string> inputs, const std::string& output) {
  auto* n = g->add_node();
  n->set_name(name);
  n->set_op_type(op);
  for (const auto& i : inputs) n->add_input(i);
  n->add_output(output);
  return n;
}

onnx::ModelProto NewModel() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  m.mutable_graph()->set_name("g");
  return m;
}

// y = x + (k1 + k2) with two 8-float initializers (32 bytes each): 2 nodes, 64 initializer bytes, and an Add that
// O1 folds into a new 32-byte constant.
onnx::ModelProto FoldableModel() {
  onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  Declare(g->mutable_input(), "x", onnx::TensorProto::FLOAT, {8});
  Declare(g->mutable_output(), "y", onnx::TensorProto::FLOAT, {8});
  AddFloats(g, "k1", 8, 1.0f);
  AddFloats(g, "k2", 8, 2.0f);
  AddNode(g, "fold_me", "Add", {"k1", "k2"}, "k");
  AddNode(g, "add", "Add", {"x", "k"}, "y");
  return m;
}

// An If whose then-branch holds another If: subgraphs two deep, 1 + 2 + 2 nodes... counted in the test.
onnx::GraphProto Branch(const std::string& name, const std::string& out, int depth) {
  onnx::GraphProto b;
  b.set_name(name);
  Declare(b.mutable_output(), out, onnx::TensorProto::FLOAT, {1});
  if (depth <= 1) {
    auto* n = AddNode(&b, name + "_const", "Constant", {}, out);
    auto* a = n->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
    a->mutable_t()->add_dims(1);
    a->mutable_t()->add_float_data(1.0f);
    return b;
  }
  auto* n = AddNode(&b, name + "_if", "If", {"c"}, out);
  auto* then_attr = n->add_attribute();
  then_attr->set_name("then_branch");
  then_attr->set_type(onnx::AttributeProto::GRAPH);
  *then_attr->mutable_g() = Branch(name + "_t", name + "_tout", depth - 1);
  auto* else_attr = n->add_attribute();
  else_attr->set_name("else_branch");
  else_attr->set_type(onnx::AttributeProto::GRAPH);
  *else_attr->mutable_g() = Branch(name + "_e", name + "_eout", depth - 1);
  return b;
}

// c -> If (depth 1) whose branches hold Ifs (depth 2) whose branches hold Constants: 1 + 2 + 4 = 7 nodes.
onnx::ModelProto NestedModel() {
  onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  Declare(g->mutable_input(), "c", onnx::TensorProto::BOOL, {});
  Declare(g->mutable_output(), "y", onnx::TensorProto::FLOAT, {1});
  onnx::GraphProto top = Branch("top", "y", 3);
  *g->mutable_node() = top.node();
  return m;
}

int NodeCount(const fs::path& model) {
  onnx::ModelProto m;
  std::ifstream in(model, std::ios::binary);
  if (!m.ParseFromIstream(&in)) return -1;
  return m.graph().node_size();
}

class LimitsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::TempDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    out_ = dir_ / "out.onnx";
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path Write(const onnx::ModelProto& m) {
    fs::path p = dir_ / "model.onnx";
    testing::WriteBytes(p, m.SerializeAsString());
    return p;
  }
  testing::KilnRun Compile(const fs::path& model, const std::string& flags) {
    return RunKiln("compile " + model.string() + " -o " + out_.string() + " " + flags);
  }
  // The compile stopped with `rc` and every needle in its one-line message, and left no file behind.
  void ExpectStopped(const testing::KilnRun& r, int rc, const std::vector<std::string>& needles) {
    EXPECT_EQ(r.rc, rc) << r.output;
    EXPECT_NE(r.output.find("kiln: error: "), std::string::npos) << r.output;
    for (const auto& n : needles) EXPECT_NE(r.output.find(n), std::string::npos) << "missing '" << n << "' in " << r.output;
    EXPECT_FALSE(fs::exists(out_));
    for (const auto& e : fs::directory_iterator(dir_))
      EXPECT_EQ(e.path().filename().string().find(".kiln-tmp-"), std::string::npos) << e.path();
  }

  fs::path dir_, out_;
};

TEST_F(LimitsCli, MaxNodesCountsSubgraphs) {
  fs::path model = Write(NestedModel());
  ExpectStopped(Compile(model, "--limits.maxNodes=6"), 2,
                {"model.onnx: the model has 7 nodes (subgraphs included), over the limit of 6",
                 "option limits.maxNodes"});
  EXPECT_EQ(Compile(model, "--limits.maxNodes=7 -O0").rc, 0);
}

TEST_F(LimitsCli, MaxTensorBytesOfAnInitializer) {
  fs::path model = Write(FoldableModel());
  ExpectStopped(Compile(model, "--limits.maxTensorBytes=31"), 2,
                {"initializer 'k1' holds 32 bytes, over the limit of 31", "option limits.maxTensorBytes"});
}

TEST_F(LimitsCli, MaxTensorBytesOfATensorAttribute) {
  fs::path model = Write(NestedModel());
  ExpectStopped(Compile(model, "--limits.maxTensorBytes=3 -O0"), 2,
                {"attribute 'value' of node 'top_t_t_const' (Constant) holds 4 bytes", "limits.maxTensorBytes"});
}

TEST_F(LimitsCli, MaxInitializerBytes) {
  fs::path model = Write(FoldableModel());
  ExpectStopped(Compile(model, "--limits.maxInitializerBytes=63"), 2,
                {"initializers and tensor attributes hold 64 bytes, over the limit of 63",
                 "option limits.maxInitializerBytes"});
  EXPECT_EQ(Compile(model, "--limits.maxInitializerBytes=64").rc, 0);
}

TEST_F(LimitsCli, MaxSubgraphDepth) {
  fs::path model = Write(NestedModel());
  ExpectStopped(Compile(model, "--limits.maxSubgraphDepth=1 -O0"), 2,
                {"subgraphs nest 2 deep, over the limit of 1", "option limits.maxSubgraphDepth"});
  EXPECT_EQ(Compile(model, "--limits.maxSubgraphDepth=2 -O0").rc, 0);
}

TEST_F(LimitsCli, MaxFoldedBytesRollsTheFoldBackOrStopsUnderStrict) {
  fs::path model = Write(FoldableModel());
  // The fold would create 32 bytes: refused, rolled back, the compile goes on and keeps the Add.
  auto r = Compile(model, "-O1 --limits.maxFoldedBytes=31");
  EXPECT_EQ(r.rc, 0) << r.output;
  EXPECT_NE(r.output.find("pass ConstantFoldingPass failed on node 'fold_me' (Add)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("over the limit of 31 bytes (option limits.maxFoldedBytes)"), std::string::npos)
      << r.output;
  EXPECT_TRUE(fs::exists(out_));
  EXPECT_EQ(NodeCount(out_), 2);  // fold_me is still there
  EXPECT_EQ(RunKiln("verify " + model.string() + " " + out_.string()).rc, 0);
  fs::remove(out_);
  ExpectStopped(Compile(model, "-O1 --limits.maxFoldedBytes=31 --strict"), 4,
                {"pass ConstantFoldingPass failed on node 'fold_me' (Add)", "option limits.maxFoldedBytes",
                 "(stopped: --strict)"});
  // With room for it, the fold happens.
  EXPECT_EQ(Compile(model, "-O1 --limits.maxFoldedBytes=32 --strict").rc, 0);
  EXPECT_EQ(NodeCount(out_), 1);
}

TEST_F(LimitsCli, PassTimeBudgetRollsThePassBackOrStopsUnderStrict) {
  fs::path model = Write(FoldableModel());
  auto r = Compile(model, "-O1 --limits.passSeconds=0.000000001");
  EXPECT_EQ(r.rc, 0) << r.output;
  EXPECT_NE(r.output.find("over its time budget of 1e-09 s (option limits.passSeconds)"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("its change was rolled back and the compile goes on"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(out_));
  EXPECT_EQ(RunKiln("verify " + model.string() + " " + out_.string()).rc, 0);
  fs::remove(out_);
  ExpectStopped(Compile(model, "-O1 --limits.passSeconds=0.000000001 --strict"), 4,
                {"over its time budget of 1e-09 s (option limits.passSeconds)", "(stopped: --strict)"});
}

TEST_F(LimitsCli, LimitsAreListedAndChecked) {
  auto r = RunKiln("options");
  for (const char* name : {"limits.maxNodes", "limits.maxTensorBytes", "limits.maxInitializerBytes",
                           "limits.maxSubgraphDepth", "limits.maxFoldedBytes", "limits.passSeconds"})
    EXPECT_NE(r.output.find(name), std::string::npos) << name;
  fs::path model = Write(FoldableModel());
  auto bad = Compile(model, "--limits.maxNodes=0");
  EXPECT_EQ(bad.rc, 3) << bad.output;
  EXPECT_NE(bad.output.find("limits.maxNodes"), std::string::npos) << bad.output;
  EXPECT_FALSE(fs::exists(out_));
}

}  // namespace
}  // namespace kiln
