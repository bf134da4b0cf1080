// TargetFormatPass (plugins/layout) through the real compiler with the ascend910b1 target (fp32: C0 = 8): the
// main graph's ops and the conversion bodies after the pass, the decisions (element-wise ops between convs run
// blocked, padded channels, broadcasts and outputs read ND, inverse pairs cancelling), graphs it leaves alone, and
// the reference executor computing the same outputs before and after every rewrite.
#include <gtest/gtest.h>

#include <sstream>

#include "cli/run_kiln.h"
#include "folding/folding_test_util.h"
#include "onnx/onnx_export.h"
#include "onnx/onnx_import.h"
#include "fusion/fusion_test_util.h"
#include "support/function_text.h"

namespace kiln {
namespace {

using kiln::testing::Canonical;
using kiln::testing::Counter;
using kiln::testing::Execute;
using kiln::testing::FunctionBodyOps;
using kiln::testing::FunctionText;
using kiln::testing::MainGraphOps;
using kiln::testing::ParseModel;
using kiln::testing::ParseModelWithFunctions;
using kiln::testing::PassRun;
using kiln::testing::PrintGraph;
using kiln::testing::RunPasses;
using kiln::testing::SameOutputs;

constexpr const char* kPass = "TargetFormatPass";
constexpr const char* kDomain = "kiln.format";

std::string M(const std::string& graph, int opset = 17) {
  return "<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + "]>\n" + graph;
}

// n deterministic values in [-1, 1] as ONNX text: "{0.25, -0.5, ...}".
std::string Values(int n, int seed) {
  std::ostringstream os;
  os << "{";
  for (int i = 0; i < n; ++i) os << (i ? ", " : "") << (((i * 7 + seed * 13) % 17) - 8) / 8.0;
  os << "}";
  return os.str();
}

// A 1x1 conv weight [out, in, 1, 1] named name, as an initializer declaration.
std::string W(const std::string& name, int out, int in, int seed) {
  return "float[" + std::to_string(out) + "," + std::to_string(in) + ",1,1] " + name + " = " +
         Values(out * in, seed);
}

PassRun RunFormats(Model& m, bool with_target = true) {
  std::map<std::string, std::string> options;
  if (with_target) options["oo.target"] = "ascend910b1";
  return RunPasses(m, {"InferShapePass", kPass}, {}, options, "O3");
}

struct Expected {
  std::string ops;  // MainGraphOps after the pass
  int64_t anchors = 0, agnostic = 0, conversions = 0, saved = 0;
};

// Runs the pass on text; expects the ops, the counters and the same outputs on the reference executor.
std::unique_ptr<Model> ExpectFormats(const std::string& text, const Expected& e) {
  auto m = ParseModel(text);
  if (!m) return nullptr;
  const auto before = Execute(*m);
  PassRun run = RunFormats(*m);
  EXPECT_EQ(MainGraphOps(*m), e.ops);
  EXPECT_EQ(Counter(run, kPass, "format_anchors"), e.anchors);
  EXPECT_EQ(Counter(run, kPass, "format_agnostic"), e.agnostic);
  EXPECT_EQ(Counter(run, kPass, "format_conversions"), e.conversions);
  EXPECT_EQ(Counter(run, kPass, "format_conversions_saved"), e.saved);
  EXPECT_TRUE(SameOutputs(before, Execute(*m)));
  return m;
}

void ExpectNoChange(const std::string& text, bool with_target = true) {
  auto m = ParseModel(text);
  ASSERT_TRUE(m);
  RunPasses(*m, {"InferShapePass"});
  const std::string before = PrintGraph(*m);
  PassRun run = RunFormats(*m, with_target);
  EXPECT_EQ(PrintGraph(*m), before);
  EXPECT_EQ(Counter(run, kPass, "format_anchors"), 0);
  EXPECT_EQ(Counter(run, kPass, "format_conversions"), 0);
}

// Conv -> ReLU -> Conv on 8 channels (one block of C0 = 8), through the pass and its checks.
std::unique_ptr<Model> ConvReluConv() {
  return ExpectFormats(M("g (float[1,8,5,5] x) => (float[1,8,5,5] y) <" + W("w1", 8, 8, 1) + ", " +
                           W("w2", 8, 8, 2) + R"(> {
    a = Conv(x, w1)
    r = Relu(a)
    y = Conv(r, w2)
  })"),
                         {"kiln.format.ToNC1HWC0_8 kiln.format.Conv_NC1HWC0 Relu kiln.format.Conv_NC1HWC0 "
                          "kiln.format.FromNC1HWC0_8",
                          2, 1, 2, 2});
}

const std::string kToBody = "Transpose Constant Reshape Transpose";
const std::string kFromBody = "Transpose Constant Reshape Transpose";

TEST(TargetFormatPass, ConvReluConvRunsBlockedBetweenOneToAndOneFrom) {
  // GE-FMT: a Conv -> ReLU -> Conv chain needs a conversion at the entry and one at the exit only.
  auto m = ConvReluConv();
  ASSERT_TRUE(m);
  // Both convs share one body (their weights are inputs of the call); the conversions are standard ops.
  EXPECT_EQ(FunctionBodyOps(*m, "ToNC1HWC0_8", kDomain), kToBody);
  EXPECT_EQ(FunctionBodyOps(*m, "FromNC1HWC0_8", kDomain), kFromBody);
  EXPECT_EQ(FunctionBodyOps(*m, "Conv_NC1HWC0", kDomain), kFromBody + " Conv " + kToBody);
  EXPECT_EQ(FunctionBodyOps(*m, "Conv_NC1HWC0_2", kDomain), "<none>");
  // The golden: blocked tensors keep their names where no ND copy of them is left; the interface keeps its names
  // and shapes; the tensors between the convs have the storage shape [N, C1, H, W, C0].
  EXPECT_EQ(PrintGraph(*m), R"(g (float[1,8,5,5] x) => (float[1,8,5,5] y) {
x_NC1HWC0 = ToNC1HWC0_8(x)
a = Conv_NC1HWC0(x_NC1HWC0, w1)
r = Relu(a)
y_NC1HWC0 = Conv_NC1HWC0(r, w2)
y = FromNC1HWC0_8(y_NC1HWC0)
}
)");
  for (const char* name : {"x_NC1HWC0", "a", "r", "y_NC1HWC0"}) {
    const Value* v = m->graph().FindValue(name);
    ASSERT_NE(v, nullptr) << name;
    EXPECT_EQ(v->type().ToString(), "float[1,1,5,5,8]") << name;
  }
}

TEST(TargetFormatPass, PaddedChannelsArePaddedOnTheWayInAndSlicedOnTheWayOut) {
  // 3 channels in fp32 blocks of 8: To pads 5 zero channels; From of a 3-channel output slices them off.
  auto m = ExpectFormats(M("g (float[1,3,4,4] x) => (float[1,3,4,4] y) <" + W("w1", 8, 3, 1) + ", " +
                           W("w2", 3, 8, 2) + R"(> {
    a = Conv(x, w1)
    y = Conv(a, w2)
  })"),
                         {"kiln.format.ToNC1HWC0_8_c3 kiln.format.Conv_NC1HWC0 kiln.format.Conv_NC1HWC0_2 "
                          "kiln.format.FromNC1HWC0_8_c3",
                          2, 0, 2, 2});
  ASSERT_TRUE(m);
  EXPECT_EQ(FunctionBodyOps(*m, "ToNC1HWC0_8_c3", kDomain), "Constant Pad " + kToBody);
  EXPECT_EQ(FunctionBodyOps(*m, "FromNC1HWC0_8_c3", kDomain), kFromBody + " Constant Constant Constant Slice");
}

TEST(TargetFormatPass, AnOpset11ModelGetsFormatsToo) {
  // PyTorch's exporter long defaulted to opset 11: the conversions need nothing newer (Constant with a tensor value,
  // Pad and Slice with inputs).
  ExpectFormats(M("g (float[1,8,4,4] x) => (float[1,8,4,4] y) <" + W("w1", 8, 8, 1) + ", " + W("w2", 8, 8, 2) +
                      R"(> {
    a = Conv(x, w1)
    r = Relu(a)
    y = Conv(r, w2)
  })",
                  11),
                {"kiln.format.ToNC1HWC0_8 kiln.format.Conv_NC1HWC0 Relu kiln.format.Conv_NC1HWC0 "
                 "kiln.format.FromNC1HWC0_8",
                 2, 1, 2, 2});
}

TEST(TargetFormatPass, AResidualAddAndTheReluAfterItRunBlocked) {
  ExpectFormats(M("g (float[1,8,4,4] x) => (float[1,8,4,4] y) <" + W("w1", 8, 8, 1) + ", " + W("w2", 8, 8, 2) +
                  R"(> {
    a = Conv(x, w1)
    r = Relu(a)
    b = Conv(r, w2)
    s = Add(b, r)
    y = Relu(s)
  })"),
                {"kiln.format.ToNC1HWC0_8 kiln.format.Conv_NC1HWC0 Relu kiln.format.Conv_NC1HWC0 Add Relu "
                 "kiln.format.FromNC1HWC0_8",
                 2, 3, 2, 2});
}

TEST(TargetFormatPass, AScalarOperandFollowsButABroadcastBiasReadsND) {
  // Mul by one element commutes with the layout; Add of a [8,1,1] bias would broadcast over the blocked dims.
  ExpectFormats(M("g (float[1,8,4,4] x) => (float[1,8,4,4] y) <" + W("w", 8, 8, 1) + ", float[1] c = {2}, " +
                  "float[8,1,1] bias = " + Values(8, 3) + R"(> {
    a = Conv(x, w)
    m = Mul(a, c)
    y = Add(m, bias)
  })"),
                {"kiln.format.ToNC1HWC0_8 kiln.format.Conv_NC1HWC0 Mul kiln.format.FromNC1HWC0_8 Add", 1, 1, 2, 0});
}

TEST(TargetFormatPass, AGraphOutputInsideARegionIsConvertedAndKeepsItsName) {
  auto m = ExpectFormats(M("g (float[1,8,4,4] x) => (float[1,8,4,4] a, float[1,8,4,4] y) <" + W("w1", 8, 8, 1) +
                           ", " + W("w2", 8, 8, 2) + R"(> {
    a = Conv(x, w1)
    r = Relu(a)
    y = Conv(r, w2)
  })"),
                         {"kiln.format.ToNC1HWC0_8 kiln.format.Conv_NC1HWC0 Relu kiln.format.Conv_NC1HWC0 "
                          "kiln.format.FromNC1HWC0_8 kiln.format.FromNC1HWC0_8",
                          2, 1, 3, 1});
  ASSERT_TRUE(m);
  const std::string text = PrintGraph(*m);
  EXPECT_NE(text.find("=> (float[1,8,4,4] a, float[1,8,4,4] y)"), std::string::npos) << text;
}

TEST(TargetFormatPass, AnExistingInversePairCancels) {
  // From(To(x)) is x; To(From(t)) is t when t has the To's output type. Both functions are this pass's bodies.
  const std::vector<FunctionText> functions = {
      {kDomain, R"(ToNC1HWC0_8 (x) => (y) {
        a = Transpose <perm = [0, 2, 3, 1]> (x)
        s = Constant <value_ints = [0, 0, 0, -1, 8]> ()
        b = Reshape(a, s)
        y = Transpose <perm = [0, 3, 1, 2, 4]> (b)
      })"},
      {kDomain, R"(FromNC1HWC0_8 (y) => (x) {
        a = Transpose <perm = [0, 2, 3, 1, 4]> (y)
        s = Constant <value_ints = [0, 0, 0, -1]> ()
        b = Reshape(a, s)
        x = Transpose <perm = [0, 3, 1, 2]> (b)
      })"}};
  const std::string text = R"(<ir_version: 8, opset_import: ["" : 17, "kiln.format" : 1]>
    g (float[1,8,4,4] x, float[1,1,4,4,8] t) => (float[1,8,4,4] y, float[1,1,4,4,8] z) {
      b = kiln.format.ToNC1HWC0_8(x)
      u = kiln.format.FromNC1HWC0_8(b)
      y = Relu(u)
      v = kiln.format.FromNC1HWC0_8(t)
      w = kiln.format.ToNC1HWC0_8(v)
      z = Neg(w)
    })";
  auto m = ParseModelWithFunctions(text, functions);
  ASSERT_TRUE(m);
  const auto before = Execute(*m);
  PassRun run = RunFormats(*m);
  EXPECT_EQ(Counter(run, kPass, "format_pairs_cancelled"), 2);
  EXPECT_EQ(MainGraphOps(*m), "Relu Neg");
  EXPECT_TRUE(SameOutputs(before, Execute(*m)));
}

TEST(TargetFormatPass, ChangesNothingWithoutATargetOrAnAnchor) {
  const std::string convs = M("g (float[1,8,4,4] x) => (float[1,8,4,4] y) <" + W("w", 8, 8, 1) + R"(> {
    a = Conv(x, w)
    y = Relu(a)
  })");
  ExpectNoChange(convs, /*with_target=*/false);
  // Nothing the target prefers blocked: a MatMul (FRACTAL_NZ weight, ND activations) and element-wise ops.
  ExpectNoChange(M(R"(g (float[4,8] x, float[8,8] w) => (float[4,8] y) {
    a = MatMul(x, w)
    y = Relu(a)
  })"));
}

TEST(TargetFormatPass, ChangesNothingWhereTheLayoutCannotBeWritten) {
  // Opset 10 (the conversions' Pad takes its pads as an input from opset 11); a channel count that is not a number.
  ExpectNoChange(M("g (float[1,8,4,4] x) => (float[1,8,4,4] y) <" + W("w", 8, 8, 1) + R"(> {
    y = Conv(x, w)
  })",
                   10));
  ExpectNoChange(M(R"(g (float[1,C,4,4] x, float[8,C,1,1] w) => (float[1,8,4,4] y) {
    y = Conv(x, w)
  })"));
  // Element-wise ops alone follow their neighbours; with no anchor there is nothing to follow.
  ExpectNoChange(M(R"(g (float[1,8,4,4] x) => (float[1,8,4,4] y) {
    y = Neg(x)
  })"));
}

TEST(TargetFormatPass, RunningTwiceChangesNothingMore) {
  auto m = ConvReluConv();
  ASSERT_TRUE(m);
  const std::string once = PrintGraph(*m);
  PassRun again = RunFormats(*m);
  EXPECT_EQ(PrintGraph(*m), once);
  EXPECT_EQ(Counter(again, kPass, "format_anchors"), 0);
}

// The whole of O3 with the target on a small CNN (stem with 3 channels, BatchNormalization folded, a residual
// block, pooling, a classifier): fusion, then formats; the written model passes onnx.checker (full_check) and,
// read back, computes what the input did.
TEST(TargetFormatPass, O3WithTheTargetWritesStandardOnnxThatComputesTheSame) {
  auto m = ParseModel(M("g (float[1,3,8,8] x) => (float[1,4] y) <" + W("w1", 8, 3, 1) + ", " + W("w2", 8, 8, 2) +
                        ", " + W("w3", 8, 8, 3) + ", float[8] s = " + Values(8, 4) + ", float[8] b = " +
                        Values(8, 5) + ", float[8] mu = " + Values(8, 6) + ", float[8] var = {1, 2, 1, 2, 1, 2, 1, 2}, " +
                        "float[4,8] fc = " + Values(32, 7) + R"(> {
    c1 = Conv(x, w1)
    n1 = BatchNormalization(c1, s, b, mu, var)
    r1 = Relu(n1)
    c2 = Conv(r1, w2)
    r2 = Relu(c2)
    c3 = Conv(r2, w3)
    a = Add(c3, r1)
    r3 = Relu(a)
    p = MaxPool <kernel_shape = [2, 2], strides = [2, 2]> (r3)
    g = GlobalAveragePool(p)
    f = Flatten(g)
    y = Gemm <transB = 1> (f, fc)
  })"));
  ASSERT_TRUE(m);
  const auto before = Execute(*m);
  kiln::testing::RunLevel(*m, "O3", {{"oo.target", "ascend910b1"}});
  const std::string ops = MainGraphOps(*m);
  EXPECT_NE(ops.find("kiln.format.ToNC1HWC0_8_c3"), std::string::npos) << ops;
  EXPECT_NE(ops.find("_NC1HWC0"), std::string::npos) << ops;
  const auto dir = kiln::testing::TempDir("target_formats_o3");
  const std::string file = (dir / "o3.onnx").string();
  WriteModel(*m, file);
  auto checked = kiln::testing::RunBinary(KILN_SYSTEM_PYTHON, "-c \"import onnx, sys; "
                                          "onnx.checker.check_model(sys.argv[1], full_check=True)\" " + file);
  EXPECT_EQ(checked.rc, 0) << checked.output;
  std::unique_ptr<Model> reread = LoadModel(file);
  ASSERT_TRUE(reread);
  EXPECT_TRUE(SameOutputs(before, Execute(*reread), 1e-4, 1e-4));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kiln
