// ConstantFoldingPass: GE's rules (marks, memory priority), the size policy, determinism and If inlining.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstring>
#include <string>
#include <vector>

#include "folding_test_util.h"
#include "ir/buffer.h"
#include "ir/tensor.h"
#include "onnx/onnx_import.h"

namespace kiln::testing {
namespace {

constexpr const char* kHeader = R"(<ir_version: 8, opset_import: ["" : 17]>)";

TEST(ConstantFoldingPassTest, FoldsAddOfConstantsAndKeepsOutputName) {
  auto m = ParseModel(std::string(kHeader) + R"(
    g () => (float[2] y) {
      a = Constant <value = float[2] {1.0, 2.0}> ()
      b = Constant <value = float[2] {3.0, 4.0}> ()
      y = Add (a, b)
    })");
  ASSERT_TRUE(m);
  PassRun run = RunPasses(*m, {"ConstantFoldingPass"});
  EXPECT_TRUE(run.changed());
  EXPECT_EQ(Counter(run, "ConstantFoldingPass", "nodes_folded"), 1);
  EXPECT_EQ(NodeCount(*m), 0u);
  ASSERT_EQ(m->graph().outputs().size(), 1u);
  EXPECT_EQ(m->graph().outputs()[0]->name(), "y");
  EXPECT_EQ(ConstValues<float>(*m, "y"), (std::vector<float>{4.0f, 6.0f}));
}

TEST(ConstantFoldingPassTest, FoldsAChainThroughTheWalk) {
  auto m = ParseModel(std::string(kHeader) + R"(
    g (float[2] x) => (float[2] y) {
      a = Constant <value = float[2] {1.0, -2.0}> ()
      r = Relu (a)
      n = Neg (r)
      y = Add (x, n)
    })");
  ASSERT_TRUE(m);
  PassRun run = RunPasses(*m, {"ConstantFoldingPass"});
  EXPECT_EQ(Counter(run, "ConstantFoldingPass", "nodes_folded"), 2);
  EXPECT_EQ(NodeCount(*m), 1u);
  EXPECT_EQ(CountOps(*m, "Add"), 1u);
}

TEST(ConstantFoldingPassTest, SkipMarkedNodes) {
  auto m = ParseModel(std::string(kHeader) + R"(
    g () => (float[2] y, float[2] z, float[2] w) {
      a = Constant <value = float[2] {1.0, 2.0}> ()
      y = Neg <_do_not_constant_folding = 1> (a)
      z = Abs <no_need_constant_folding = 1> (a)
      w = Relu (a)
    })");
  ASSERT_TRUE(m);
  PassRun run = RunPasses(*m, {"ConstantFoldingPass"});
  EXPECT_EQ(Counter(run, "ConstantFoldingPass", "skipped_marked"), 2);
  EXPECT_EQ(CountOps(*m, "Neg"), 1u);
  EXPECT_EQ(CountOps(*m, "Abs"), 1u);
  EXPECT_EQ(CountOps(*m, "Relu"), 0u);
  // The user's marks are kept on export.
  std::string printed = PrintGraph(*m);
  EXPECT_NE(printed.find("_do_not_constant_folding"), std::string::npos) << printed;
}

TEST(ConstantFoldingPassTest, SkipNamesOption) {
  auto m = ParseModel(std::string(kHeader) + R"(
    g () => (float[2] y, float[2] z) {
      a = Constant <value = float[2] {1.0, 2.0}> ()
      y = Neg (a)
      z = Abs (a)
    })");
  ASSERT_TRUE(m);
  // Name the nodes (the text form gives no names to nodes).
  for (auto& n : m->graph().nodes()) n->SetName(n->op_type() == "Neg" ? "keep/neg" : n->op_type());
  PassRun run = RunPasses(*m, {"ConstantFoldingPass{skip_names: '^keep/'}"});
  EXPECT_EQ(CountOps(*m, "Neg"), 1u);
  EXPECT_EQ(CountOps(*m, "Abs"), 0u);
}

TEST(ConstantFoldingPassTest, MemoryPriorityKeepsSharedLargeConstants) {
  const std::string text = std::string(kHeader) + R"(
    g () => (float[9] y, float[9] z) {
      a = Constant <value = float[9] {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0}> ()
      y = Neg (a)
      z = Abs (a)
    })";
  auto m = ParseModel(text);
  ASSERT_TRUE(m);
  PassRun run = RunPasses(*m, {"ConstantFoldingPass"}, {}, {{"oo.memoryPolicy", "MemoryPriority"}});
  EXPECT_FALSE(run.changed());
  EXPECT_EQ(Counter(run, "ConstantFoldingPass", "skipped_memory_priority"), 2);
  EXPECT_EQ(NodeCount(*m), 3u);

  auto balanced = ParseModel(text);
  PassRun run2 = RunPasses(*balanced, {"ConstantFoldingPass"}, {}, {{"oo.memoryPolicy", "Balanced"}});
  EXPECT_EQ(Counter(run2, "ConstantFoldingPass", "nodes_folded"), 2);
  EXPECT_EQ(NodeCount(*balanced), 0u);
}

TEST(ConstantFoldingPassTest, MemoryPrioritySmallSharedConstantsStillFold) {
  auto m = ParseModel(std::string(kHeader) + R"(
    g () => (float[2] y, float[2] z) {
      a = Constant <value = float[2] {1.0, 2.0}> ()
      y = Neg (a)
      z = Abs (a)
    })");
  ASSERT_TRUE(m);
  PassRun run = RunPasses(*m, {"ConstantFoldingPass"}, {}, {{"oo.memoryPolicy", "MemoryPriority"}});
  EXPECT_EQ(Counter(run, "ConstantFoldingPass", "nodes_folded"), 2);
}

TEST(ConstantFoldingPassTest, SizePolicyKeepsLargeConstantOfShapeExpandTile) {
  auto m = ParseModel(std::string(kHeader) + R"(
    g () => (float[1024,1024] y, float[512,512] z, float[256,1024] w, float[4] small) {
      s = Constant <value = int64[2] {1024, 1024}> ()
      y = ConstantOfShape <value = float[1] {1.0}> (s)
      one = Constant <value = float[1] {2.0}> ()
      es = Constant <value = int64[2] {512, 512}> ()
      z = Expand (one, es)
      t = Constant <value = float[1,4] {1.0, 2.0, 3.0, 4.0}> ()
      reps = Constant <value = int64[2] {256, 256}> ()
      w = Tile (t, reps)
      s4 = Constant <value = int64[1] {4}> ()
      small = ConstantOfShape <value = float[1] {0.5}> (s4)
    })");
  ASSERT_TRUE(m);
  PassRun run = RunPasses(*m, {"InferShapePass", "ConstantFoldingPass"});
  EXPECT_EQ(CountOps(*m, "ConstantOfShape"), 1u);
  EXPECT_EQ(CountOps(*m, "Expand"), 1u);
  EXPECT_EQ(CountOps(*m, "Tile"), 1u);
  EXPECT_EQ(Counter(run, "ConstantFoldingPass", "skipped_size"), 3);
  EXPECT_EQ(ConstValues<float>(*m, "small"), (std::vector<float>(4, 0.5f)));
}

// An output whose static shape counts more bytes than int64 holds (the fuzzer found 2^48 x 1.8e9 elements) is
// over every limit: skipped, never computed.
TEST(ConstantFoldingPassTest, AShapeWhoseByteCountOverflowsIsTooLarge) {
  auto m = ParseModel(std::string(kHeader) + R"(
    g () => (float[281474976710657,1796014079] y) {
      s = Constant <value = int64[2] {281474976710657, 1796014079}> ()
      y = ConstantOfShape <value = float[1] {1.0}> (s)
    })");
  ASSERT_TRUE(m);
  PassRun run = RunPasses(*m, {"InferShapePass", "ConstantFoldingPass"});
  EXPECT_EQ(CountOps(*m, "ConstantOfShape"), 1u);
  EXPECT_EQ(Counter(run, "ConstantFoldingPass", "skipped_size"), 1);
}

TEST(ConstantFoldingPassTest, MaxOutputBytesOption) {
  auto m = ParseModel(std::string(kHeader) + R"(
    g () => (float[64] y) {
      a = Constant <value = float[64] {1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
                                       1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
                                       1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
                                       1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0}> ()
      y = Neg (a)
    })");
  ASSERT_TRUE(m);
  // The global option (oo.constantFolding.maxOutputBytes) is a plugin option, set on the CLI; a test's session
  // options are checked before plugins load, so the pass's own argument is used here.
  PassRun run = RunPasses(*m, {"ConstantFoldingPass{max_output_bytes: 128}"});
  EXPECT_EQ(CountOps(*m, "Neg"), 1u);
  EXPECT_EQ(Counter(run, "ConstantFoldingPass", "skipped_size"), 1);
}

TEST(ConstantFoldingPassTest, NondeterministicOpsDoNotFold) {
  auto m = ParseModel(std::string(kHeader) + R"(
    g () => (float[2] y) {
      a = Constant <value = float[2] {1.0, 2.0}> ()
      y = RandomUniformLike (a)
    })");
  ASSERT_TRUE(m);
  PassRun run = RunPasses(*m, {"ConstantFoldingPass"});
  EXPECT_FALSE(run.changed());
  EXPECT_EQ(CountOps(*m, "RandomUniformLike"), 1u);
}

TEST(ConstantFoldingPassTest, IfWithConstantConditionIsInlined) {
  auto m = ParseModel(std::string(kHeader) + R"(
    g (float[2] x) => (float[2] y) {
      c = Constant <value = bool {1}> ()
      y = If (c) <
        then_branch = t () => (float[2] ty) { ty = Relu (x) },
        else_branch = e () => (float[2] ey) { ey = Neg (x) }>
    })");
  ASSERT_TRUE(m);
  PassRun run = RunPasses(*m, {"ConstantFoldingPass"});
  EXPECT_EQ(Counter(run, "ConstantFoldingPass", "if_inlined"), 1);
  EXPECT_EQ(CountOps(*m, "If"), 0u);
  EXPECT_EQ(CountOps(*m, "Relu"), 1u);
  EXPECT_EQ(CountOps(*m, "Neg"), 0u);
}

TEST(ConstantFoldingPassTest, FoldsInsideSubgraphsUsingOuterConstants) {
  // The branch's Mul reads two constants of the enclosing graph: it folds inside the branch; the If stays.
  auto m = ParseModel(std::string(kHeader) + R"(
    g (bool c, float[2] x) => (float[2] y) {
      a = Constant <value = float[2] {1.0, 2.0}> ()
      b = Constant <value = float[2] {3.0, 4.0}> ()
      y = If (c) <
        then_branch = t () => (float[2] ty) { p = Mul (a, b)
          ty = Add (x, p) },
        else_branch = e () => (float[2] ey) { ey = Neg (x) }>
    })");
  ASSERT_TRUE(m);
  PassRun run = RunPasses(*m, {"ConstantFoldingPass"});
  EXPECT_EQ(Counter(run, "ConstantFoldingPass", "nodes_folded"), 1);
  EXPECT_EQ(CountOps(*m, "If"), 1u);
  const Graph* then_branch = nullptr;
  for (const auto& n : m->graph().nodes())
    if (n->op_type() == "If") then_branch = n->subgraphs()[0];
  ASSERT_NE(then_branch, nullptr);
  EXPECT_EQ(then_branch->num_nodes(), 1u);  // only the Add is left
  const Value* p = then_branch->nodes().front()->input(1);
  ASSERT_TRUE(p->initializer());
  auto v = p->initializer()->values<float>();
  EXPECT_EQ(std::vector<float>(v.begin(), v.end()), (std::vector<float>{3.0f, 8.0f}));
}

TEST(ConstantFoldingPassTest, ChangesNothingWithoutConstants) {
  auto m = ParseModel(std::string(kHeader) + R"(
    g (float[2] x) => (float[2] y) {
      r = Relu (x)
      y = Neg (r)
    })");
  ASSERT_TRUE(m);
  const std::string before = PrintGraph(*m);
  PassRun run = RunPasses(*m, {"ConstantFoldingPass"});
  EXPECT_FALSE(run.changed());
  EXPECT_EQ(PrintGraph(*m), before);
}

TEST(ConstantFoldingPassTest, SwitchedOffNothingFoldsAndShapeNodesAreReported) {
  auto m = ParseModel(std::string(kHeader) + R"(
    g (float[2,3] x) => (int64[2] y, float[2] z) {
      y = Shape (x)
      a = Constant <value = float[2] {1.0, 2.0}> ()
      z = Neg (a)
    })");
  ASSERT_TRUE(m);
  PassRun run = RunPasses(*m, {"InferShapePass", "DimensionComputePass", "ConstantFoldingPass"}, {},
                          {{"oo.constantFolding", "false"}});
  EXPECT_EQ(CountOps(*m, "Shape"), 1u);
  EXPECT_EQ(CountOps(*m, "Neg"), 1u);
  EXPECT_EQ(Counter(run, "InferShapePass", "dimension_ops_not_folded"), 1);
}

// Transposes of weights of 1 MiB or more fold into computed constants: nothing is made when the pass folds them,
// and the bytes, once made, are the transposed weight's (3-D float with a perm, 2-D 2-byte with the default perm).
TEST(ConstantFoldingPassTest, TransposesOfLargeWeightsFoldLazilyToTheSameElements) {
  const std::vector<int64_t> a_dims = {48, 40, 150}, b_dims = {1024, 600};  // 1.15 MB and 1.23 MB
  onnx::ModelProto proto;
  proto.set_ir_version(8);
  proto.add_opset_import()->set_version(17);
  onnx::GraphProto* g = proto.mutable_graph();
  g->set_name("g");
  auto add_weight = [&](const char* name, int type, const std::vector<int64_t>& dims, size_t elem) {
    onnx::TensorProto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    size_t n = 1;
    for (int64_t d : dims) {
      t->add_dims(d);
      n *= static_cast<size_t>(d);
    }
    std::string bytes(n * elem, '\0');
    for (size_t i = 0; i < n; ++i) {
      const uint32_t v = static_cast<uint32_t>(i * 2654435761u);  // distinct in every byte position
      std::memcpy(bytes.data() + i * elem, &v, elem);
    }
    t->set_raw_data(bytes);
  };
  add_weight("a", onnx::TensorProto::FLOAT, a_dims, 4);
  add_weight("b", onnx::TensorProto::UINT16, b_dims, 2);
  auto add_transpose = [&](const char* in, const char* out, const std::vector<int64_t>& perm) {
    onnx::NodeProto* n = g->add_node();
    n->set_op_type("Transpose");
    n->add_input(in);
    n->add_output(out);
    if (!perm.empty()) {
      onnx::AttributeProto* at = n->add_attribute();
      at->set_name("perm");
      at->set_type(onnx::AttributeProto::INTS);
      for (int64_t p : perm) at->add_ints(p);
    }
    g->add_output()->set_name(out);
  };
  add_transpose("a", "ya", {2, 0, 1});
  add_transpose("b", "yb", {});
  auto m = ImportModel(std::move(proto), "lazy_transpose", "");
  ASSERT_TRUE(m);
  const std::vector<std::byte> a_in(m->graph().FindValue("a")->initializer()->raw_bytes().begin(),
                                    m->graph().FindValue("a")->initializer()->raw_bytes().end());
  const std::vector<std::byte> b_in(m->graph().FindValue("b")->initializer()->raw_bytes().begin(),
                                    m->graph().FindValue("b")->initializer()->raw_bytes().end());

  PassRun run = RunPasses(*m, {"ConstantFoldingPass"});
  EXPECT_EQ(Counter(run, "ConstantFoldingPass", "nodes_folded"), 2);
  EXPECT_EQ(NodeCount(*m), 0u);
  const Tensor* ya = m->graph().FindValue("ya")->initializer().get();
  const Tensor* yb = m->graph().FindValue("yb")->initializer().get();
  ASSERT_TRUE(ya && yb);
  EXPECT_EQ(ya->dims(), (std::vector<int64_t>{150, 48, 40}));
  EXPECT_EQ(yb->dims(), (std::vector<int64_t>{600, 1024}));
  EXPECT_TRUE(run.computed.contains("ya") && run.computed.contains("yb")) << "made whole by the pass";

  std::span<const std::byte> got_a = ya->raw_bytes(), got_b = yb->raw_bytes();
  ASSERT_EQ(got_a.size(), a_in.size());
  ASSERT_EQ(got_b.size(), b_in.size());
  for (int64_t k = 0; k < 150; ++k)
    for (int64_t i = 0; i < 48; ++i)
      for (int64_t j = 0; j < 40; ++j) {
        const size_t out = static_cast<size_t>((k * 48 + i) * 40 + j);
        const size_t in = static_cast<size_t>((i * 40 + j) * 150 + k);
        ASSERT_EQ(0, std::memcmp(&got_a[out * 4], &a_in[in * 4], 4)) << k << "," << i << "," << j;
      }
  for (int64_t j = 0; j < 600; ++j)
    for (int64_t i = 0; i < 1024; ++i) {
      const size_t out = static_cast<size_t>(j * 1024 + i), in = static_cast<size_t>(i * 600 + j);
      ASSERT_EQ(0, std::memcmp(&got_b[out * 2], &b_in[in * 2], 2)) << j << "," << i;
    }
}

// Below 1 MiB a transpose folds as before, through the kernel, into bytes held whole.
TEST(ConstantFoldingPassTest, SmallTransposesFoldThroughTheKernel) {
  auto m = ParseModel(std::string(kHeader) + R"(
    g () => (float[3, 2] y) <float[2, 3] w = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0}> {
      y = Transpose (w)
    })");
  ASSERT_TRUE(m);
  PassRun run = RunPasses(*m, {"ConstantFoldingPass"});
  EXPECT_EQ(Counter(run, "ConstantFoldingPass", "nodes_folded"), 1);
  EXPECT_TRUE(run.computed.empty());
  EXPECT_EQ(ConstValues<float>(*m, "y"), (std::vector<float>{1.0f, 4.0f, 2.0f, 5.0f, 3.0f, 6.0f}));
}

}  // namespace
}  // namespace kiln::testing
