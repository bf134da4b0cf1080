// Golden cases of configs/fusion/activations.yaml: GELU's erf form in the four placements ORT lists (PyTorch 1 and
// 2, Keras, TF; fusion-facts §1.2), alone and after a MatMul and bias; GELU's tanh form with x*x*x or Pow(x, 3)
// (§1.3); SiLU, SwiGLU, Mish (§1.4, §1.5); HardSigmoid and HardSwish as relu6(x + 3) / 6, with Clip or Min/Max.
#include "fusion/golden_case.h"

namespace kiln::testing {
namespace {

constexpr const char* kGeluConstants = "<float s2 = {1.4142135}, float one = {1.0}, float half = {0.5}>";

std::vector<GoldenCase> Cases() {
  std::vector<GoldenCase> c;

  // ---- gelu_erf
  c.push_back({"gelu_erf", "PyTorch2", Expect::kFires, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) )" + std::string(kGeluConstants) + R"( {
      d = Div(x, s2)
      e = Erf(d)
      a = Add(e, one)
      m = Mul(x, a)
      y = Mul(m, half)
    })"), FusedModel(R"(g (float[2,8] x) => (float[2,8] y) {
      y = kiln.fused.Gelu <value_c0 = float {1.4142135}, value_c1 = float {1}, value_c2 = float {0.5}> (x)
    })"), "Constant Constant Constant Div Erf Add Mul Mul"});
  c.back().numerics = true;

  // Constants from Constant nodes (passed to the call: only initializers are embedded); 0.5 on x first.
  c.push_back({"gelu_erf", "PyTorch1ConstantNodes", Expect::kFires, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) {
      s2 = Constant <value = float {1.4142135}> ()
      one = Constant <value = float {1.0}> ()
      half = Constant <value = float {0.5}> ()
      h = Mul(half, x)
      d = Div(x, s2)
      e = Erf(d)
      a = Add(one, e)
      y = Mul(a, h)
    })"), FusedModel(R"(g (float[2,8] x) => (float[2,8] y) {
      s2 = Constant <value = float {1.4142135}> ()
      one = Constant <value = float {1.0}> ()
      half = Constant <value = float {0.5}> ()
      y = kiln.fused.Gelu (half, x, s2, one)
    })"), "Mul Div Erf Add Mul"});
  c.back().numerics = true;

  c.push_back({"gelu_erf", "Keras", Expect::kFires, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) )" + std::string(kGeluConstants) + R"( {
      d = Div(x, s2)
      e = Erf(d)
      a = Add(e, one)
      m = Mul(a, half)
      y = Mul(x, m)
    })"), FusedModel(R"(g (float[2,8] x) => (float[2,8] y) {
      y = kiln.fused.Gelu <value_c0 = float {1.4142135}, value_c1 = float {1}, value_c2 = float {0.5}> (x)
    })"), "Constant Constant Constant Div Erf Add Mul Mul"});

  // TF: x times 1/sqrt(2) (0.70710677, within the rule's 1e-3).
  c.push_back({"gelu_erf", "TfMulBySqrtHalf", Expect::kFires, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) <float r2 = {0.70710677}, float one = {1.0}, float half = {0.5}> {
      d = Mul(r2, x)
      e = Erf(d)
      a = Add(one, e)
      m = Mul(half, a)
      y = Mul(m, x)
    })"), FusedModel(R"(g (float[2,8] x) => (float[2,8] y) {
      y = kiln.fused.Gelu <value_c0 = float {0.70710677}, value_c1 = float {1}, value_c2 = float {0.5}> (x)
    })"), "Constant Constant Constant Mul Erf Add Mul Mul"});
  c.back().numerics = true;

  c.push_back({"gelu_erf", "DivByTwo", Expect::kNoCandidate, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) <float two = {2.0}, float one = {1.0}, float half = {0.5}> {
      d = Div(x, two)
      e = Erf(d)
      a = Add(e, one)
      m = Mul(x, a)
      y = Mul(m, half)
    })")});
  c.back().disable = "div_by_constant";

  c.push_back({"gelu_erf", "ErfIsAGraphOutput", Expect::kRejected, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y, float[2,8] e) )" + std::string(kGeluConstants) + R"( {
      d = Div(x, s2)
      e = Erf(d)
      a = Add(e, one)
      m = Mul(x, a)
      y = Mul(m, half)
    })")});
  c.back().reason = "value 'e' of node 'Erf' (Erf) is a graph output";
  c.back().disable = "div_by_constant";

  // ---- matmul_bias_gelu: BERT's intermediate dense layer and its activation
  c.push_back({"matmul_bias_gelu", "BertIntermediate", Expect::kFires, OnnxModel(R"(
    g (float[2,4] h) => (float[2,8] y) <float[4,8] w = {1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1}, float[8] b = {0, 1, 0, -1, 0, 1, 0, -1}, float s2 = {1.4142135}, float one = {1.0}, float half = {0.5}> {
      p = MatMul(h, w)
      x = Add(p, b)
      d = Div(x, s2)
      e = Erf(d)
      a = Add(e, one)
      m = Mul(x, a)
      y = Mul(m, half)
    })"), FusedModel(R"(g (float[2,4] h) => (float[2,8] y) <float[4,8] w = {1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1}, float[8] b = {0, 1, 0, -1, 0, 1, 0, -1}> {
      y = kiln.fused.MatMulBiasGelu <value_c0 = float {1.4142135}, value_c1 = float {1}, value_c2 = float {0.5}> (h, w, b)
    })"), "Constant Constant Constant MatMul Add Div Erf Add Mul Mul"});
  c.back().numerics = true;

  c.push_back({"matmul_bias_gelu", "BiasFirstKeras", Expect::kFires, OnnxModel(R"(
    g (float[2,3,4] h) => (float[2,3,8] y) <float[4,8] w = {1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1}, float[8] b = {0, 1, 0, -1, 0, 1, 0, -1}, float s2 = {1.4142135}, float one = {1.0}, float half = {0.5}> {
      p = MatMul(h, w)
      x = Add(b, p)
      d = Div(x, s2)
      e = Erf(d)
      a = Add(e, one)
      m = Mul(a, half)
      y = Mul(x, m)
    })"), FusedModel(R"(g (float[2,3,4] h) => (float[2,3,8] y) <float[4,8] w = {1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1}, float[8] b = {0, 1, 0, -1, 0, 1, 0, -1}> {
      y = kiln.fused.MatMulBiasGelu <value_c0 = float {1.4142135}, value_c1 = float {1}, value_c2 = float {0.5}> (h, w, b)
    })"), "Constant Constant Constant MatMul Add Div Erf Add Mul Mul"});
  c.back().numerics = true;

  // A weight from a graph input: no MatMulBiasGelu; the GELU alone is fused.
  c.push_back({"matmul_bias_gelu", "WeightNotConstant", Expect::kNoCandidate, OnnxModel(R"(
    g (float[2,4] h, float[4,8] w) => (float[2,8] y) <float[8] b = {0, 1, 0, -1, 0, 1, 0, -1}, float s2 = {1.4142135}, float one = {1.0}, float half = {0.5}> {
      p = MatMul(h, w)
      x = Add(p, b)
      d = Div(x, s2)
      e = Erf(d)
      a = Add(e, one)
      m = Mul(x, a)
      y = Mul(m, half)
    })"), FusedModel(R"(g (float[2,4] h, float[4,8] w) => (float[2,8] y) <float[8] b = {0, 1, 0, -1, 0, 1, 0, -1}> {
      p = MatMul(h, w)
      x = Add(p, b)
      y = kiln.fused.Gelu <value_c0 = float {1.4142135}, value_c1 = float {1}, value_c2 = float {0.5}> (x)
    })")});

  // ---- gelu_tanh
  // The exporter's gelu(approximate='tanh'): x * x * x.
  c.push_back({"gelu_tanh", "ExporterCube", Expect::kFires, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) <float half = {0.5}, float one = {1.0}, float beta = {0.7978845834732056}, float kappa = {0.044715}> {
      x2 = Mul(x, x)
      x3 = Mul(x, x2)
      k = Mul(kappa, x3)
      i = Add(x, k)
      b = Mul(beta, i)
      t = Tanh(b)
      a = Add(one, t)
      m = Mul(x, a)
      y = Mul(half, m)
    })"), FusedModel(R"(g (float[2,8] x) => (float[2,8] y) {
      y = kiln.fused.GeluTanh <value_c0 = float {0.044715}, value_c1 = float {0.7978846}, value_c2 = float {1}, value_c3 = float {0.5}> (x)
    })"), "Constant Constant Constant Constant Mul Mul Mul Add Mul Tanh Add Mul Mul"});
  c.back().numerics = true;

  // HF NewGELUActivation: Pow(x, 3), 0.5 * x first, operands the other way round.
  c.push_back({"gelu_tanh", "HuggingFacePow", Expect::kFires, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) <float half = {0.5}, float one = {1.0}, float three = {3.0}, float beta = {0.7978846}, float kappa = {0.044715}> {
      h = Mul(half, x)
      x3 = Pow(x, three)
      k = Mul(x3, kappa)
      i = Add(k, x)
      b = Mul(i, beta)
      t = Tanh(b)
      a = Add(t, one)
      y = Mul(h, a)
    })"), FusedModel(R"(g (float[2,8] x) => (float[2,8] y) {
      y = kiln.fused.GeluTanh <value_c0 = float {0.5}, value_c1 = float {3}, value_c2 = float {0.044715}, value_c3 = float {0.7978846}, value_c4 = float {1}> (x)
    })"), "Constant Constant Constant Constant Constant Mul Pow Mul Add Mul Tanh Add Mul"});
  c.back().numerics = true;

  c.push_back({"gelu_tanh", "WrongKappa", Expect::kNoCandidate, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) <float half = {0.5}, float one = {1.0}, float beta = {0.7978845834732056}, float kappa = {0.1}> {
      x2 = Mul(x, x)
      x3 = Mul(x, x2)
      k = Mul(kappa, x3)
      i = Add(x, k)
      b = Mul(beta, i)
      t = Tanh(b)
      a = Add(one, t)
      m = Mul(x, a)
      y = Mul(half, m)
    })")});

  // ---- silu
  c.push_back({"silu", "XFirst", Expect::kFires, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) {
      s = Sigmoid(x)
      y = Mul(x, s)
    })"), FusedModel(R"(g (float[2,8] x) => (float[2,8] y) {
      y = kiln.fused.SiLU(x)
    })"), "Sigmoid Mul"});
  c.back().numerics = true;

  c.push_back({"silu", "SigmoidFirst", Expect::kFires, OnnxModel(R"(
    g (float[2,8] a) => (float[2,8] y) {
      x = Relu(a)
      s = Sigmoid(x)
      y = Mul(s, x)
    })"), FusedModel(R"(g (float[2,8] a) => (float[2,8] y) {
      x = Relu(a)
      y = kiln.fused.SiLU(x)
    })"), "Sigmoid Mul"});
  c.back().numerics = true;

  c.push_back({"silu", "SigmoidOfAnotherValue", Expect::kNoCandidate, OnnxModel(R"(
    g (float[2,8] x, float[2,8] z) => (float[2,8] y) {
      s = Sigmoid(z)
      y = Mul(x, s)
    })")});

  c.push_back({"silu", "SigmoidReadElsewhere", Expect::kRejected, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y, float[2,8] w) {
      s = Sigmoid(x)
      y = Mul(x, s)
      w = Neg(s)
    })")});
  c.back().reason = "value 's' of node 'Sigmoid' (Sigmoid) is read by node 'Neg' (Neg) outside the group";

  // ---- swiglu: LLaMA's MLP
  c.push_back({"swiglu", "Llama", Expect::kFires, OnnxModel(R"(
    g (float[2,4] x, float[4,6] wg, float[4,6] wu, float[6,4] wd) => (float[2,4] y) {
      g1 = MatMul(x, wg)
      s = Sigmoid(g1)
      a = Mul(g1, s)
      u = MatMul(x, wu)
      m = Mul(a, u)
      y = MatMul(m, wd)
    })"), FusedModel(R"(g (float[2,4] x, float[4,6] wg, float[4,6] wu, float[6,4] wd) => (float[2,4] y) {
      m = kiln.fused.SwiGLU(x, wg, wu)
      y = MatMul(m, wd)
    })"), "MatMul Sigmoid Mul MatMul Mul"});
  c.back().numerics = true;

  c.push_back({"swiglu", "UpProjectionFirst", Expect::kFires, OnnxModel(R"(
    g (float[2,3,4] x) => (float[2,3,6] y) <float[4,6] wg = {1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 1, 0}, float[4,6] wu = {0, 1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0}> {
      u = MatMul(x, wu)
      g1 = MatMul(x, wg)
      s = Sigmoid(g1)
      a = Mul(s, g1)
      y = Mul(u, a)
    })"), FusedModel(R"(g (float[2,3,4] x) => (float[2,3,6] y) <float[4,6] wg = {1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 1, 0}, float[4,6] wu = {0, 1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0}> {
      y = kiln.fused.SwiGLU(x, wu, wg)
    })"), "MatMul MatMul Sigmoid Mul Mul"});
  c.back().numerics = true;

  // Gate and up projections of different inputs: no SwiGLU (the SiLU alone, switched off here).
  c.push_back({"swiglu", "ProjectionsOfDifferentInputs", Expect::kNoCandidate, OnnxModel(R"(
    g (float[2,4] x, float[2,4] z, float[4,6] wg, float[4,6] wu) => (float[2,6] y) {
      g1 = MatMul(x, wg)
      s = Sigmoid(g1)
      a = Mul(g1, s)
      u = MatMul(z, wu)
      y = Mul(a, u)
    })")});
  c.back().disable = "silu";

  // ---- mish
  c.push_back({"mish", "XFirst", Expect::kFires, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) {
      p = Softplus(x)
      t = Tanh(p)
      y = Mul(x, t)
    })"), FusedModel(R"(g (float[2,8] x) => (float[2,8] y) {
      y = kiln.fused.Mish(x)
    })"), "Softplus Tanh Mul"});
  c.back().numerics = true;

  c.push_back({"mish", "TanhFirst", Expect::kFires, OnnxModel(R"(
    g (float[2,8] a) => (float[2,8] y) {
      x = Neg(a)
      p = Softplus(x)
      t = Tanh(p)
      y = Mul(t, x)
    })"), FusedModel(R"(g (float[2,8] a) => (float[2,8] y) {
      x = Neg(a)
      y = kiln.fused.Mish(x)
    })"), "Softplus Tanh Mul"});
  c.back().numerics = true;

  c.push_back({"mish", "SoftplusOfAnotherValue", Expect::kNoCandidate, OnnxModel(R"(
    g (float[2,8] x, float[2,8] z) => (float[2,8] y) {
      p = Softplus(z)
      t = Tanh(p)
      y = Mul(x, t)
    })")});

  // ---- hard_sigmoid: relu6(x + 3) / 6
  c.push_back({"hard_sigmoid", "ClipDiv", Expect::kFires, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) <float three = {3.0}, float zero = {0.0}, float six = {6.0}> {
      a = Add(x, three)
      r = Clip(a, zero, six)
      y = Div(r, six)
    })", 13), OnnxModel(R"(g (float[2,8] x) => (float[2,8] y) {
      y = HardSigmoid <alpha = 0.16666667, beta = 0.5> (x)
    })", 13)});
  c.back().numerics = true;

  c.push_back({"hard_sigmoid", "MinMaxTimesASixth", Expect::kFires, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) <float three = {3.0}, float zero = {0.0}, float six = {6.0}, float sixth = {0.16666667}> {
      a = Add(three, x)
      b = Max(zero, a)
      r = Min(b, six)
      y = Mul(sixth, r)
    })", 11), OnnxModel(R"(g (float[2,8] x) => (float[2,8] y) {
      y = HardSigmoid <alpha = 0.16666667, beta = 0.5> (x)
    })", 11)});
  c.back().numerics = true;

  c.push_back({"hard_sigmoid", "PlusTwo", Expect::kNoCandidate, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) <float two = {2.0}, float zero = {0.0}, float six = {6.0}> {
      a = Add(x, two)
      r = Clip(a, zero, six)
      y = Div(r, six)
    })", 13)});
  c.back().disable = "div_by_constant";

  // ---- hard_swish: x * relu6(x + 3) / 6 (HardSwish is opset 14's)
  c.push_back({"hard_swish", "ClipDiv", Expect::kFires, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) <float three = {3.0}, float zero = {0.0}, float six = {6.0}> {
      a = Add(x, three)
      r = Clip(a, zero, six)
      m = Mul(x, r)
      y = Div(m, six)
    })", 14), OnnxModel(R"(g (float[2,8] x) => (float[2,8] y) {
      y = HardSwish(x)
    })", 14)});
  c.back().numerics = true;

  c.push_back({"hard_swish", "MinMaxTimesASixth", Expect::kFires, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) <float three = {3.0}, float zero = {0.0}, float six = {6.0}, float sixth = {0.16666667}> {
      a = Add(x, three)
      b = Max(a, zero)
      r = Min(six, b)
      m = Mul(r, x)
      y = Mul(m, sixth)
    })", 17), OnnxModel(R"(g (float[2,8] x) => (float[2,8] y) {
      y = HardSwish(x)
    })", 17)});
  c.back().numerics = true;

  // x * (relu6(x + 3) / 6): round one writes HardSigmoid, round two x * HardSigmoid(x) -> HardSwish.
  c.push_back({"hard_swish", "AfterHardSigmoid", Expect::kFires, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) <float three = {3.0}, float zero = {0.0}, float six = {6.0}> {
      a = Add(x, three)
      r = Clip(a, zero, six)
      h = Div(r, six)
      y = Mul(x, h)
    })", 14), OnnxModel(R"(g (float[2,8] x) => (float[2,8] y) {
      y = HardSwish(x)
    })", 14)});
  c.back().numerics = true;

  c.push_back({"hard_swish", "Opset13", Expect::kNoCandidate, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) <float three = {3.0}, float zero = {0.0}, float six = {6.0}> {
      a = Add(x, three)
      r = Clip(a, zero, six)
      m = Mul(x, r)
      y = Div(m, six)
    })", 13)});
  c.back().disable = "div_by_constant";

  // HardSigmoid with its default alpha (0.2) is not x * relu6(x + 3) / 6.
  c.push_back({"hard_swish", "HardSigmoidOfDefaultAlpha", Expect::kNoCandidate, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) {
      h = HardSigmoid(x)
      y = Mul(x, h)
    })", 14)});

  return c;
}

}  // namespace

KILN_FUSION_GOLDENS(activations, Cases);

}  // namespace kiln::testing
