// kiln bisect finds a plugin's wrong pass: CorruptArithmeticPass (plugins/corrupt_plugin.c), loaded by a pipeline
// that extends O1 and puts it into OptimizeStage1's walk beside fourteen correct passes, scales one Mul's
// constant by 1.01. Bisect must name that pass and that node, write the models before and after it, and find
// nothing when the pass touches no node.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>

#include "cli/run_kiln.h"

namespace kiln {
namespace {

using testing::RunKiln;
namespace fs = std::filesystem;

const std::string kPlugin = std::string(KILN_TEST_PLUGIN_DIR) + "/libkiln_test_plugin_corrupt.so";

void AddFloatInitializer(onnx::GraphProto* g, const std::string& name, std::vector<float> values) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(static_cast<int64_t>(values.size()));
  for (float v : values) t->add_float_data(v);
}

void AddNode(onnx::GraphProto* g, const std::string& name, const std::string& op, std::vector<std::string> inputs,
             const std::string& output) {
  auto* n = g->add_node();
  n->set_name(name);
  n->set_op_type(op);
  for (const auto& i : inputs) n->add_input(i);
  n->add_output(output);
}

// y = Sigmoid(Mul(Add(Relu(Mul(Identity(x), c1)), Add(k1, k2)), c3)): an Identity to remove, a constant Add to
// fold, and the Mul named scale2 that the corrupting pass is pointed at.
onnx::ModelProto BisectModel() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("bisect");
  for (auto [name, list] : {std::pair{"x", g->mutable_input()}, std::pair{"y", g->mutable_output()}}) {
    auto* v = list->Add();
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    tt->mutable_shape()->add_dim()->set_dim_value(1);
    tt->mutable_shape()->add_dim()->set_dim_value(8);
  }
  AddFloatInitializer(g, "c1", {0.5f, -1.0f, 2.0f, 1.5f, -0.25f, 3.0f, 1.0f, 0.75f});
  AddFloatInitializer(g, "k1", {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f});
  AddFloatInitializer(g, "k2", {1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f});
  AddFloatInitializer(g, "c3", {2.0f, 2.0f, 2.0f, 2.0f, 2.0f, 2.0f, 2.0f, 2.0f});
  AddNode(g, "id", "Identity", {"x"}, "x1");
  AddNode(g, "scale", "Mul", {"x1", "c1"}, "h1");
  AddNode(g, "act", "Relu", {"h1"}, "h2");
  AddNode(g, "fold_me", "Add", {"k1", "k2"}, "k");
  AddNode(g, "shift", "Add", {"h2", "k"}, "h3");
  AddNode(g, "scale2", "Mul", {"h3", "c3"}, "h4");
  AddNode(g, "out", "Sigmoid", {"h4"}, "y");
  return m;
}

class BisectCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::TempDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    model_ = dir_ / "model.onnx";
    testing::WriteBytes(model_, BisectModel().SerializeAsString());
  }
  void TearDown() override { fs::remove_all(dir_); }

  // O1 with CorruptArithmeticPass in OptimizeStage1's walk, pointed at `node`.
  std::string Pipeline(const std::string& node) {
    fs::path p = dir_ / "corrupt.yaml";
    std::ofstream(p) << "extends: O1\nplugins: [" << kPlugin << "]\nstages:\n  - name: OptimizeStage1\n"
                     << "    insert_after:\n      IdentityEliminationPass:\n"
                     << "        - {name: CorruptArithmeticPass, args: {node: " << node << "}}\n";
    return p.string();
  }

  fs::path dir_, model_;
};

TEST_F(BisectCli, NamesThePluginPassAndTheNodeItBroke) {
  fs::path dump = dir_ / "dump";
  auto r = RunKiln("bisect " + model_.string() + " --pipeline " + Pipeline("scale2") + " --dump-dir " + dump.string());
  EXPECT_EQ(r.rc, 5) << r.output;
  EXPECT_NE(r.output.find("first diverging pass: CorruptArithmeticPass (stage OptimizeStage1, in the walk of"),
            std::string::npos) << r.output;
  EXPECT_NE(r.output.find("its change on node 'scale2' (Mul)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("first diverging node: 'scale2' (Mul), output 'h4'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("graph output 'y' differs"), std::string::npos) << r.output;
  // The dumped models: the one before still computes what the input does, the one after does not.
  ASSERT_TRUE(fs::exists(dump / "before.onnx")) << r.output;
  ASSERT_TRUE(fs::exists(dump / "after.onnx")) << r.output;
  EXPECT_EQ(RunKiln("verify " + model_.string() + " " + (dump / "before.onnx").string()).rc, 0);
  auto after = RunKiln("verify " + model_.string() + " " + (dump / "after.onnx").string());
  EXPECT_EQ(after.rc, 5) << after.output;
  // The change is the pass's alone: the after-model holds the scaled constant, the before-model does not.
  onnx::ModelProto before_proto, after_proto;
  std::ifstream bf(dump / "before.onnx", std::ios::binary), af(dump / "after.onnx", std::ios::binary);
  ASSERT_TRUE(before_proto.ParseFromIstream(&bf));
  ASSERT_TRUE(after_proto.ParseFromIstream(&af));
  auto has = [](const onnx::ModelProto& m, const std::string& name) {
    for (const auto& t : m.graph().initializer())
      if (t.name() == name) return true;
    return false;
  };
  EXPECT_FALSE(has(before_proto, "c3_corrupted"));
  EXPECT_TRUE(has(after_proto, "c3_corrupted"));
}

TEST_F(BisectCli, FindsNothingWhenNoPassChangesTheNumbers) {
  fs::path dump = dir_ / "dump";
  auto r = RunKiln("bisect " + model_.string() + " --pipeline " + Pipeline("no_such_node") + " --dump-dir " +
                   dump.string() + " --seed 7");
  EXPECT_EQ(r.rc, 0) << r.output;
  EXPECT_NE(r.output.find("no divergence"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("first diverging"), std::string::npos) << r.output;
}

TEST_F(BisectCli, DefaultDumpDirIsBesideTheModel) {
  auto r = RunKiln("bisect " + model_.string() + " --pipeline " + Pipeline("scale2"));
  EXPECT_EQ(r.rc, 5) << r.output;
  EXPECT_TRUE(fs::exists(dir_ / "model.bisect" / "after.onnx")) << r.output;
  EXPECT_NE(r.output.find((dir_ / "model.bisect" / "before.onnx").string()), std::string::npos) << r.output;
}

}  // namespace
}  // namespace kiln
