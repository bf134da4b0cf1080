// Golden cases of configs/fusion/algebra.yaml: identities (x*1, x+0, x-0, x/1, x^1, -(-x)) with the constant on
// either side, as an initializer or a Constant node, and never when the identity would change the result's shape
// or the constant is only nearly the identity (an epsilon of 1e-6 is no zero); division by a constant; folded
// chains of constant scales and shifts.
#include "fusion/golden_case.h"

namespace kiln::testing {
namespace {

std::vector<GoldenCase> Cases() {
  std::vector<GoldenCase> c;

  // ---- mul_one
  c.push_back({"mul_one", "ScalarOneSecond", Expect::kFires, OnnxModel(R"(
    g (float[2,3] x) => (float[2,3] y) <float one = {1.0}> {
      m = Mul(x, one)
      y = Relu(m)
    })"), OnnxModel(R"(g (float[2,3] x) => (float[2,3] y) {
      y = Relu(x)
    })")});
  c.back().numerics = true;

  c.push_back({"mul_one", "VectorOfOnesFirst", Expect::kFires, OnnxModel(R"(
    g (float[2,3] x) => (float[2,3] y) {
      one = Constant <value = float[3] {1, 1, 1}> ()
      m = Mul(one, x)
      y = Relu(m)
    })"), OnnxModel(R"(g (float[2,3] x) => (float[2,3] y) {
      y = Relu(x)
    })")});
  c.back().numerics = true;

  // Ones of a larger shape broadcast x: dropping them would change the result's shape.
  c.push_back({"mul_one", "OnesBroadcastX", Expect::kNoCandidate, OnnxModel(R"(
    g (float[1,3] x) => (float[2,3] y) <float[2,3] one = {1, 1, 1, 1, 1, 1}> {
      m = Mul(x, one)
      y = Relu(m)
    })")});

  c.push_back({"mul_one", "NearlyOne", Expect::kNoCandidate, OnnxModel(R"(
    g (float[2,3] x) => (float[2,3] y) <float one = {1.000001}> {
      m = Mul(x, one)
      y = Relu(m)
    })")});

  // The graph's output would become its input.
  c.push_back({"mul_one", "InputToOutput", Expect::kRejected, OnnxModel(R"(
    g (float[2,3] x) => (float[2,3] y) <float one = {1.0}> {
      y = Mul(x, one)
    })")});
  c.back().reason = "the result is a graph output and 'x' is an input, an output or a constant";

  // ---- add_zero
  c.push_back({"add_zero", "ScalarZeroSecond", Expect::kFires, OnnxModel(R"(
    g (float[2,3] x) => (float[2,3] y) <float zero = {0.0}> {
      a = Add(x, zero)
      y = Abs(a)
    })"), OnnxModel(R"(g (float[2,3] x) => (float[2,3] y) {
      y = Abs(x)
    })")});
  c.back().numerics = true;

  c.push_back({"add_zero", "ZerosFirst", Expect::kFires, OnnxModel(R"(
    g (float[2,3] x) => (float[2,3] y) <float[1,3] zero = {0, 0, 0}> {
      a = Add(zero, x)
      y = Abs(a)
    })"), OnnxModel(R"(g (float[2,3] x) => (float[2,3] y) {
      y = Abs(x)
    })")});
  c.back().numerics = true;

  // Relu(x + 0) is also a BiasAct with a zero bias: the identity outranks the fusion, so the + 0 is gone rather
  // than carried into a fused body.
  c.push_back({"add_zero", "BeforeAnActivation", Expect::kFires, OnnxModel(R"(
    g (float[2,3] x) => (float[2,3] y) <float[3] zero = {0, 0, 0}> {
      a = Add(x, zero)
      y = Relu(a)
    })"), OnnxModel(R"(g (float[2,3] x) => (float[2,3] y) {
      y = Relu(x)
    })")});
  c.back().numerics = true;

  // A norm's epsilon is no zero (the default tolerance of 1e-6 took it for one).
  c.push_back({"add_zero", "Epsilon", Expect::kNoCandidate, OnnxModel(R"(
    g (float[2,3] x) => (float[2,3] y) <float eps = {1e-6}> {
      a = Add(x, eps)
      y = Sqrt(a)
    })")});

  // ---- sub_zero
  c.push_back({"sub_zero", "ScalarZero", Expect::kFires, OnnxModel(R"(
    g (float[2,3] x) => (float[2,3] y) <float zero = {0.0}> {
      a = Sub(x, zero)
      y = Relu(a)
    })"), OnnxModel(R"(g (float[2,3] x) => (float[2,3] y) {
      y = Relu(x)
    })")});
  c.back().numerics = true;

  c.push_back({"sub_zero", "ZerosFromAConstantNode", Expect::kFires, OnnxModel(R"(
    g (double[2,3] x) => (double[2,3] y) {
      zero = Constant <value = double[3] {0, 0, 0}> ()
      a = Sub(x, zero)
      y = Relu(a)
    })"), OnnxModel(R"(g (double[2,3] x) => (double[2,3] y) {
      y = Relu(x)
    })")});
  c.back().numerics = true;

  // 0 - x is -x, not x.
  c.push_back({"sub_zero", "ZeroMinusX", Expect::kNoCandidate, OnnxModel(R"(
    g (float[2,3] x) => (float[2,3] y) <float zero = {0.0}> {
      a = Sub(zero, x)
      y = Relu(a)
    })")});

  // ---- div_one
  c.push_back({"div_one", "ScalarOne", Expect::kFires, OnnxModel(R"(
    g (float[2,3] x) => (float[2,3] y) <float one = {1.0}> {
      a = Div(x, one)
      y = Relu(a)
    })"), OnnxModel(R"(g (float[2,3] x) => (float[2,3] y) {
      y = Relu(x)
    })")});
  c.back().numerics = true;

  c.push_back({"div_one", "IntegerOnes", Expect::kFires, OnnxModel(R"(
    g (int64[2,3] x) => (int64[2,3] y) {
      one = Constant <value = int64[3] {1, 1, 1}> ()
      a = Div(x, one)
      y = Abs(a)
    })"), OnnxModel(R"(g (int64[2,3] x) => (int64[2,3] y) {
      y = Abs(x)
    })")});
  c.back().numerics = true;

  // 1 / x is no identity.
  c.push_back({"div_one", "OneOverX", Expect::kNoCandidate, OnnxModel(R"(
    g (float[2,3] x) => (float[2,3] y) <float one = {1.0}> {
      a = Div(one, x)
      y = Relu(a)
    })")});

  // ---- pow_one
  c.push_back({"pow_one", "FloatExponent", Expect::kFires, OnnxModel(R"(
    g (float[2,3] x) => (float[2,3] y) <float one = {1.0}> {
      a = Pow(x, one)
      y = Relu(a)
    })"), OnnxModel(R"(g (float[2,3] x) => (float[2,3] y) {
      y = Relu(x)
    })")});
  c.back().numerics = true;

  c.push_back({"pow_one", "IntegerExponent", Expect::kFires, OnnxModel(R"(
    g (float[2,3] x) => (float[2,3] y) <int64 one = {1}> {
      a = Pow(x, one)
      y = Relu(a)
    })"), OnnxModel(R"(g (float[2,3] x) => (float[2,3] y) {
      y = Relu(x)
    })")});
  c.back().numerics = true;

  c.push_back({"pow_one", "Square", Expect::kNoCandidate, OnnxModel(R"(
    g (float[2,3] x) => (float[2,3] y) <float two = {2.0}> {
      a = Pow(x, two)
      y = Relu(a)
    })")});

  // ---- div_by_constant
  c.push_back({"div_by_constant", "Scalar", Expect::kFires, OnnxModel(R"(
    g (float[2,3] x) => (float[2,3] y) <float four = {4.0}> {
      y = Div(x, four)
    })"), OnnxModel(R"(g (float[2,3] x) => (float[2,3] y) <float Div_const = {0.25}> {
      y = Mul(x, Div_const)
    })")});
  c.back().inits = "Div/const: float[] {0.25}\n";
  c.back().numerics = true;

  c.push_back({"div_by_constant", "DoubleVector", Expect::kFires, OnnxModel(R"(
    g (double[2,3] x) => (double[2,3] y) {
      c = Constant <value = double[3] {2, -4, 8}> ()
      d = Div(x, c)
      y = Relu(d)
    })"), OnnxModel(R"(g (double[2,3] x) => (double[2,3] y) <double[3] Div_const = {0.5, -0.25, 0.125}> {
      Div_Mul_output_0 = Mul(x, Div_const)
      y = Relu(Div_Mul_output_0)
    })")});
  c.back().inits = "Div/const: double[3] {0.5, -0.25, 0.125}\n";
  c.back().numerics = true;

  c.push_back({"div_by_constant", "DivisorWithAZero", Expect::kRejected, OnnxModel(R"(
    g (float[2,3] x) => (float[2,3] y) <float[3] c = {2, 0, 8}> {
      y = Div(x, c)
    })")});
  c.back().reason = "$recip of a zero";

  c.push_back({"div_by_constant", "IntegerDivision", Expect::kNoCandidate, OnnxModel(R"(
    g (int64[2,3] x) => (int64[2,3] y) <int64 c = {4}> {
      y = Div(x, c)
    })")});

  // ---- scale_chain
  c.push_back({"scale_chain", "Scalars", Expect::kFires, OnnxModel(R"(
    g (float[2,3] x) => (float[2,3] y) <float c1 = {2.0}, float c2 = {3.0}> {
      a = Mul(x, c1)
      y = Mul(a, c2)
    })"), OnnxModel(R"(g (float[2,3] x) => (float[2,3] y) <float Mul_const = {6}> {
      y = Mul(x, Mul_const)
    })")});
  c.back().inits = "Mul/const: float[] {6}\n";
  c.back().numerics = true;

  c.push_back({"scale_chain", "VectorFirstThenScalar", Expect::kFires, OnnxModel(R"(
    g (float[2,3] x) => (float[2,3] y) <float[3] c1 = {1, 2, 3}, float c2 = {0.5}> {
      a = Mul(c1, x)
      m = Mul(c2, a)
      y = Relu(m)
    })"), OnnxModel(R"(g (float[2,3] x) => (float[2,3] y) <float[3] Mul_const = {0.5, 1, 1.5}> {
      Mul_Mul_output_0 = Mul(x, Mul_const)
      y = Relu(Mul_Mul_output_0)
    })")});
  c.back().inits = "Mul/const: float[3] {0.5, 1, 1.5}\n";
  c.back().numerics = true;

  // The outer constant raises the rank ([4] * [1,1] is [1,4]): one Mul by the product would lose it.
  c.push_back({"scale_chain", "ConstantRaisesTheRank", Expect::kNoCandidate, OnnxModel(R"(
    g (float[4] x) => (float[1,4] y) <float[4] c1 = {1, 2, 3, 4}, float[1,1] c2 = {2.0}> {
      a = Mul(x, c1)
      y = Mul(a, c2)
    })")});

  // [3] and [2,1] make a [2,3] product: more than one Mul by one constant of either shape.
  c.push_back({"scale_chain", "ShapesDoNotCombine", Expect::kRejected, OnnxModel(R"(
    g (float[2,3] x) => (float[2,3] y) <float[3] c1 = {1, 2, 3}, float[2,1] c2 = {2, 3}> {
      a = Mul(x, c1)
      y = Mul(a, c2)
    })")});
  c.back().reason = "the constants' shapes do not combine";

  // ---- shift_chain
  c.push_back({"shift_chain", "Scalars", Expect::kFires, OnnxModel(R"(
    g (float[2,3] x) => (float[2,3] y) <float c1 = {2.0}, float c2 = {-0.5}> {
      a = Add(x, c1)
      y = Add(a, c2)
    })"), OnnxModel(R"(g (float[2,3] x) => (float[2,3] y) <float Add_const = {1.5}> {
      y = Add(x, Add_const)
    })")});
  c.back().inits = "Add/const: float[] {1.5}\n";
  c.back().numerics = true;

  c.push_back({"shift_chain", "ConstantsFirst", Expect::kFires, OnnxModel(R"(
    g (double[2,3] x) => (double[2,3] y) <double[3] c1 = {1, 2, 3}, double[3] c2 = {10, 20, 30}> {
      a = Add(c1, x)
      s = Add(c2, a)
      y = Abs(s)
    })"), OnnxModel(R"(g (double[2,3] x) => (double[2,3] y) <double[3] Add_const = {11, 22, 33}> {
      Add_Add_output_0 = Add(x, Add_const)
      y = Abs(Add_Add_output_0)
    })")});
  c.back().inits = "Add/const: double[3] {11, 22, 33}\n";
  c.back().numerics = true;

  // Overlapping chains: a rewrite read by another rewrite of the same round waits a round (it read a deleted value
  // and the whole pass was rolled back), so five shifts fold into one over the rounds.
  c.push_back({"shift_chain", "FiveInARow", Expect::kFires, OnnxModel(R"(
    g (float[2,3] x) => (float[2,3] y) <float c1 = {1.0}, float c2 = {2.0}, float c3 = {3.0}, float c4 = {4.0},
                                        float c5 = {5.0}> {
      a1 = Add(x, c1)
      a2 = Add(a1, c2)
      a3 = Add(a2, c3)
      a4 = Add(a3, c4)
      y = Add(a4, c5)
    })"), OnnxModel(R"(g (float[2,3] x) => (float[2,3] y) <float Add_Add_const = {15.0}> {
      y = Add(x, Add_Add_const)
    })")});
  c.back().inits = "Add/Add/const: float[] {15}\n";
  c.back().numerics = true;

  // The same when the first rewrite of the round is another rule's (x + 0 goes first: benefit 100).
  c.push_back({"shift_chain", "AfterAnIdentity", Expect::kFires, OnnxModel(R"(
    g (float[2,3] x) => (float[2,3] y) <float zero = {0.0}, float c1 = {2.0}, float c2 = {-0.5}> {
      a = Add(x, zero)
      b = Add(a, c1)
      y = Add(b, c2)
    })"), OnnxModel(R"(g (float[2,3] x) => (float[2,3] y) <float Add_const = {1.5}> {
      y = Add(x, Add_const)
    })")});
  c.back().inits = "Add/const: float[] {1.5}\n";
  c.back().numerics = true;

  c.push_back({"shift_chain", "ConstantRaisesTheRank", Expect::kNoCandidate, OnnxModel(R"(
    g (float[4] x) => (float[1,4] y) <float[4] c1 = {1, 2, 3, 4}, float[1,1] c2 = {2.0}> {
      a = Add(x, c1)
      y = Add(a, c2)
    })")});

  // ---- double_neg
  c.push_back({"double_neg", "BeforeRelu", Expect::kFires, OnnxModel(R"(
    g (float[2,3] x) => (float[2,3] y) {
      a = Neg(x)
      b = Neg(a)
      y = Relu(b)
    })"), OnnxModel(R"(g (float[2,3] x) => (float[2,3] y) {
      y = Relu(x)
    })")});
  c.back().numerics = true;

  c.push_back({"double_neg", "InAChain", Expect::kFires, OnnxModel(R"(
    g (float[2,3] v) => (float[2,3] y) {
      x = Exp(v)
      a = Neg(x)
      b = Neg(a)
      y = Sqrt(b)
    })"), OnnxModel(R"(g (float[2,3] v) => (float[2,3] y) {
      x = Exp(v)
      y = Sqrt(x)
    })")});
  c.back().numerics = true;

  c.push_back({"double_neg", "InnerNegReadElsewhere", Expect::kRejected, OnnxModel(R"(
    g (float[2,3] x) => (float[2,3] y, float[2,3] z) {
      a = Neg(x)
      b = Neg(a)
      y = Relu(b)
      z = Abs(a)
    })")});
  c.back().reason = "value 'a' of node 'Neg' (Neg) is read by node 'Abs' (Abs) outside the group";

  return c;
}

}  // namespace

KILN_FUSION_GOLDENS(algebra, Cases);

}  // namespace kiln::testing
