// Golden cases of configs/fusion/elementwise.yaml: (x + a) * c with and without an activation, x * c + a, and a
// bias with an activation, the constants on either side.
#include "fusion/golden_case.h"

namespace kiln::testing {
namespace {

// Constants of 8 floats (32 bytes: the call takes them as inputs).
constexpr const char* kAC = "<float[8] a = {1, 2, 3, 4, -1, -2, -3, -4}, float[8] c = {0.5, 2, 0.5, 2, 0.5, 2, 0.5, 2}>";

std::vector<GoldenCase> Cases() {
  std::vector<GoldenCase> c;

  // ---- affine_act
  c.push_back({"affine_act", "Relu", Expect::kFires, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) )" + std::string(kAC) + R"( {
      s = Add(x, a)
      m = Mul(s, c)
      y = Relu(m)
    })"), FusedModel(R"(g (float[2,8] x) => (float[2,8] y) )" + std::string(kAC) + R"( {
      y = kiln.fused.AffineAct(x, a, c)
    })"), "Add Mul Relu"});
  c.back().numerics = true;

  c.push_back({"affine_act", "SigmoidConstantsFirst", Expect::kFires, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) )" + std::string(kAC) + R"( {
      s = Add(a, x)
      m = Mul(c, s)
      y = Sigmoid(m)
    })"), FusedModel(R"(g (float[2,8] x) => (float[2,8] y) )" + std::string(kAC) + R"( {
      y = kiln.fused.AffineAct(a, x, c)
    })"), "Add Mul Sigmoid"});
  c.back().numerics = true;

  c.push_back({"affine_act", "ShiftNotConstant", Expect::kNoCandidate, OnnxModel(R"(
    g (float[2,8] x, float[8] a) => (float[2,8] y) <float[8] c = {0.5, 2, 0.5, 2, 0.5, 2, 0.5, 2}> {
      s = Add(x, a)
      m = Mul(s, c)
      y = Relu(m)
    })")});

  // ---- affine
  c.push_back({"affine", "AddThenMul", Expect::kFires, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) )" + std::string(kAC) + R"( {
      s = Add(x, a)
      y = Mul(s, c)
    })"), FusedModel(R"(g (float[2,8] x) => (float[2,8] y) )" + std::string(kAC) + R"( {
      y = kiln.fused.Affine(x, a, c)
    })"), "Add Mul"});
  c.back().numerics = true;

  c.push_back({"affine", "MulThenAddConstantsFirst", Expect::kFires, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) )" + std::string(kAC) + R"( {
      m = Mul(c, x)
      s = Add(a, m)
      y = Exp(s)
    })"), FusedModel(R"(g (float[2,8] x) => (float[2,8] y) )" + std::string(kAC) + R"( {
      s = kiln.fused.Affine(c, x, a)
      y = Exp(s)
    })"), "Mul Add"});
  c.back().numerics = true;

  c.push_back({"affine", "ScaleNotConstant", Expect::kNoCandidate, OnnxModel(R"(
    g (float[2,8] x, float[8] c) => (float[2,8] y) <float[8] a = {1, 2, 3, 4, -1, -2, -3, -4}> {
      s = Add(x, a)
      y = Mul(s, c)
    })")});

  // ---- bias_act
  c.push_back({"bias_act", "Relu", Expect::kFires, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) )" + std::string(kAC) + R"( {
      s = Add(x, a)
      y = Relu(s)
    })"), FusedModel(R"(g (float[2,8] x) => (float[2,8] y) )" + std::string(kAC) + R"( {
      y = kiln.fused.BiasAct(x, a)
    })"), "Add Relu"});
  c.back().numerics = true;

  c.push_back({"bias_act", "TanhBiasFirst", Expect::kFires, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) )" + std::string(kAC) + R"( {
      s = Add(a, x)
      y = Tanh(s)
    })"), FusedModel(R"(g (float[2,8] x) => (float[2,8] y) )" + std::string(kAC) + R"( {
      y = kiln.fused.BiasAct(a, x)
    })"), "Add Tanh"});
  c.back().numerics = true;

  c.push_back({"bias_act", "SumReadElsewhere", Expect::kRejected, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y, float[2,8] z) )" + std::string(kAC) + R"( {
      s = Add(x, a)
      y = Sigmoid(s)
      z = Neg(s)
    })")});
  c.back().reason = "value 's' of node 'Add' (Add) is read by node 'Neg' (Neg) outside the group";

  return c;
}

}  // namespace

KILN_FUSION_GOLDENS(elementwise, Cases);

}  // namespace kiln::testing
