// Golden cases of configs/fusion/linear.yaml: a 2-D MatMul and its bias as Gemm (the bias a row or the whole
// product, on either side of the Add; never a bias that broadcasts the product, which Gemm's C cannot), Gemm and an
// activation, and the N-D MatMul + bias with or without an activation. A bias of three floats (12 bytes) is
// embedded in the call.
#include "fusion/golden_case.h"

namespace kiln::testing {
namespace {

constexpr const char* kW = "float[4,3] w = {1, 0, 2, 0, 1, 0, -1, 0, 1, 0, 2, 1}";

std::string W(const std::string& more) { return std::string("<") + kW + ", " + more + ">"; }

std::vector<GoldenCase> Cases() {
  std::vector<GoldenCase> c;

  // ---- matmul_add_to_gemm
  c.push_back({"matmul_add_to_gemm", "RowBias", Expect::kFires, OnnxModel(R"(
    g (float[2,4] a) => (float[2,3] y) )" + W("float[3] b = {1, 2, 3}") + R"( {
      p = MatMul(a, w)
      y = Add(p, b)
    })"), OnnxModel(R"(g (float[2,4] a) => (float[2,3] y) )" + W("float[3] b = {1, 2, 3}") + R"( {
      y = Gemm(a, w, b)
    })")});
  c.back().numerics = true;

  c.push_back({"matmul_add_to_gemm", "MatrixBiasFirst", Expect::kFires, OnnxModel(R"(
    g (float[2,4] a) => (float[2,3] y) )" + W("float[2,3] b = {1, 2, 3, 4, 5, 6}") + R"( {
      p = MatMul(a, w)
      s = Add(b, p)
      y = Abs(s)
    })"), OnnxModel(R"(g (float[2,4] a) => (float[2,3] y) )" + W("float[2,3] b = {1, 2, 3, 4, 5, 6}") + R"( {
      Add_Gemm_output_0 = Gemm(a, w, b)
      y = Abs(Add_Gemm_output_0)
    })")});
  c.back().numerics = true;

  // [1,4] x [4,3] + [2,3] is [2,3]; Gemm's C must broadcast to [1,3].
  c.push_back({"matmul_add_to_gemm", "BiasBroadcastsTheProduct", Expect::kNoCandidate, OnnxModel(R"(
    g (float[1,4] a) => (float[2,3] y) )" + W("float[2,3] b = {1, 2, 3, 4, 5, 6}") + R"( {
      p = MatMul(a, w)
      y = Add(p, b)
    })")});
  c.back().disable = "matmul_bias";

  // A 3-D input is no Gemm (MatMulBias instead, switched off here).
  c.push_back({"matmul_add_to_gemm", "ThreeDimensional", Expect::kNoCandidate, OnnxModel(R"(
    g (float[2,2,4] a) => (float[2,2,3] y) )" + W("float[3] b = {1, 2, 3}") + R"( {
      p = MatMul(a, w)
      y = Add(p, b)
    })")});
  c.back().disable = "matmul_bias";

  // ---- gemm_act
  c.push_back({"gemm_act", "ReluTransB", Expect::kFires, OnnxModel(R"(
    g (float[2,4] a) => (float[2,3] y) <float[3,4] w = {1, 0, 2, 0, 1, 0, -1, 0, 1, 0, 2, 1}, float[3] b = {1, -2, 3}> {
      p = Gemm <transB = 1> (a, w, b)
      y = Relu(p)
    })"), FusedModel(R"(g (float[2,4] a) => (float[2,3] y) <float[3,4] w = {1, 0, 2, 0, 1, 0, -1, 0, 1, 0, 2, 1}, float[3] b = {1, -2, 3}> {
      y = kiln.fused.GemmAct <value_c0 = float[3] {1, -2, 3}, transB_0 = 1> (a, w)
    })"), "Constant Gemm Relu"});
  c.back().numerics = true;

  c.push_back({"gemm_act", "ClipWithoutBias", Expect::kFires, OnnxModel(R"(
    g (float[2,4] a, float[4,3] w) => (float[2,3] y) <float lo = {0.0}, float hi = {6.0}> {
      p = Gemm(a, w)
      y = Clip(p, lo, hi)
    })", 13), FusedModel(R"(g (float[2,4] a, float[4,3] w) => (float[2,3] y) {
      y = kiln.fused.GemmAct <value_c0 = float {0}, value_c1 = float {6}> (a, w)
    })", 13), "Constant Constant Gemm Clip"});
  c.back().numerics = true;

  // MatMul + Add + Relu in 2-D: round one writes the Gemm, round two fuses it with the Relu.
  c.push_back({"gemm_act", "FromMatMulAdd", Expect::kFires, OnnxModel(R"(
    g (float[2,4] a) => (float[2,3] y) )" + W("float[3] b = {1, -2, 3}") + R"( {
      p = MatMul(a, w)
      s = Add(p, b)
      y = Relu(s)
    })"), FusedModel(R"(g (float[2,4] a) => (float[2,3] y) )" + W("float[3] b = {1, -2, 3}") + R"( {
      y = kiln.fused.GemmAct <value_c0 = float[3] {1, -2, 3}> (a, w)
    })"), "Constant Gemm Relu"});
  c.back().numerics = true;

  c.push_back({"gemm_act", "GemmIsAGraphOutput", Expect::kRejected, OnnxModel(R"(
    g (float[2,4] a, float[4,3] w) => (float[2,3] y, float[2,3] p) {
      p = Gemm(a, w)
      y = Tanh(p)
    })")});
  c.back().reason = "value 'p' of node 'Gemm' (Gemm) is a graph output";

  // ---- matmul_bias_act (N-D)
  c.push_back({"matmul_bias_act", "Relu3D", Expect::kFires, OnnxModel(R"(
    g (float[2,3,4] x) => (float[2,3,3] y) )" + W("float[3] b = {1, -2, 3}") + R"( {
      p = MatMul(x, w)
      s = Add(p, b)
      y = Relu(s)
    })"), FusedModel(R"(g (float[2,3,4] x) => (float[2,3,3] y) )" + W("float[3] b = {1, -2, 3}") + R"( {
      y = kiln.fused.MatMulBiasAct <value_c0 = float[3] {1, -2, 3}> (x, w)
    })"), "Constant MatMul Add Relu"});
  c.back().numerics = true;

  c.push_back({"matmul_bias_act", "TanhBiasFirst", Expect::kFires, OnnxModel(R"(
    g (float[2,3,4] x) => (float[2,3,3] y) )" + W("float[3] b = {1, -2, 3}") + R"( {
      p = MatMul(x, w)
      s = Add(b, p)
      y = Tanh(s)
    })"), FusedModel(R"(g (float[2,3,4] x) => (float[2,3,3] y) )" + W("float[3] b = {1, -2, 3}") + R"( {
      y = kiln.fused.MatMulBiasAct <value_c0 = float[3] {1, -2, 3}> (x, w)
    })"), "Constant MatMul Add Tanh"});
  c.back().numerics = true;

  c.push_back({"matmul_bias_act", "BiasNotConstant", Expect::kNoCandidate, OnnxModel(R"(
    g (float[2,3,4] x, float[3] b) => (float[2,3,3] y) <)" + std::string(kW) + R"(> {
      p = MatMul(x, w)
      s = Add(p, b)
      y = Relu(s)
    })")});

  // ---- matmul_bias (N-D)
  c.push_back({"matmul_bias", "ThreeDimensional", Expect::kFires, OnnxModel(R"(
    g (float[2,3,4] x) => (float[2,3,3] y) )" + W("float[3] b = {1, -2, 3}") + R"( {
      p = MatMul(x, w)
      y = Add(p, b)
    })"), FusedModel(R"(g (float[2,3,4] x) => (float[2,3,3] y) )" + W("float[3] b = {1, -2, 3}") + R"( {
      y = kiln.fused.MatMulBias <value_c0 = float[3] {1, -2, 3}> (x, w)
    })"), "Constant MatMul Add"});
  c.back().numerics = true;

  c.push_back({"matmul_bias", "BiasFirstBeforeSoftmax", Expect::kFires, OnnxModel(R"(
    g (float[2,3,4] x) => (float[2,3,3] y) )" + W("float[3] b = {1, -2, 3}") + R"( {
      p = MatMul(x, w)
      s = Add(b, p)
      y = Softmax(s)
    })"), FusedModel(R"(g (float[2,3,4] x) => (float[2,3,3] y) )" + W("float[3] b = {1, -2, 3}") + R"( {
      s = kiln.fused.MatMulBias <value_c0 = float[3] {1, -2, 3}> (x, w)
      y = Softmax(s)
    })"), "Constant MatMul Add"});
  c.back().numerics = true;

  c.push_back({"matmul_bias", "WeightNotConstant", Expect::kNoCandidate, OnnxModel(R"(
    g (float[2,3,4] x, float[4,3] w) => (float[2,3,3] y) <float[3] b = {1, -2, 3}> {
      p = MatMul(x, w)
      y = Add(p, b)
    })")});

  return c;
}

}  // namespace

KILN_FUSION_GOLDENS(linear, Cases);

}  // namespace kiln::testing
