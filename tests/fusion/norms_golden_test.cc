// Golden cases of configs/fusion/norms.yaml: LayerNorm as the exporters decompose it (fusion-facts §1.1: Pow or
// Mul(d, d), Div or Mul-Reciprocal, the duplicated Sub, Casts of the fp16 path, ReduceMean axes as an attribute or,
// at opset 18, an input), LayerNormalization at opset 17, RMSNorm (§1.6) and the residual Add before either (§1.10).
#include "fusion/golden_case.h"

namespace kiln::testing {
namespace {

// gamma and beta of 8 floats (32 bytes: passed to a call as inputs, not embedded).
constexpr const char* kAffine =
    "float[8] gamma = {1, 2, 3, 4, 5, 6, 7, 8}, float[8] beta = {0, 0, 1, 1, -1, -1, 0.5, 0.5}";

std::string Inits(const std::string& more) { return std::string("<") + kAffine + (more.empty() ? "" : ", " + more) + ">"; }

std::vector<GoldenCase> Cases() {
  std::vector<GoldenCase> c;

  // ---- layer_norm_to_standard
  c.push_back({"layer_norm_to_standard", "PowDiv", Expect::kFires, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) )" + Inits("float two = {2.0}, float eps = {1e-5}") + R"( {
      m = ReduceMean <axes = [-1]> (x)
      d = Sub(x, m)
      p = Pow(d, two)
      v = ReduceMean <axes = [-1]> (p)
      a = Add(v, eps)
      s = Sqrt(a)
      n = Div(d, s)
      g1 = Mul(n, gamma)
      y = Add(g1, beta)
    })"), OnnxModel(R"(g (float[2,8] x) => (float[2,8] y) )" + Inits("") + R"( {
      y = LayerNormalization <axis = -1, epsilon = 1e-05> (x, gamma, beta)
    })")});
  c.back().numerics = true;

  c.push_back({"layer_norm_to_standard", "AxesInputOpset18MulSquareReciprocal", Expect::kFires, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) )" + Inits("float eps = {1e-3}, int64[1] ax = {-1}") + R"( {
      m = ReduceMean(x, ax)
      d = Sub(x, m)
      p = Mul(d, d)
      v = ReduceMean(p, ax)
      a = Add(eps, v)
      s = Sqrt(a)
      r = Reciprocal(s)
      n = Mul(d, r)
      g1 = Mul(gamma, n)
      y = Add(beta, g1)
    })", 18), OnnxModel(R"(g (float[2,8] x) => (float[2,8] y) )" + Inits("") + R"( {
      y = LayerNormalization <axis = -1, epsilon = 0.001> (x, gamma, beta)
    })", 18)});
  c.back().numerics = true;
  c.back().verify = false;  // onnx 1.12 knows ReduceMean up to opset 13 (axes an attribute)

  // At opset 16 there is no LayerNormalization: the fused LayerNorm instead.
  c.push_back({"layer_norm_to_standard", "Opset16", Expect::kNoCandidate, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) )" + Inits("float two = {2.0}, float eps = {1e-5}") + R"( {
      m = ReduceMean <axes = [-1]> (x)
      d = Sub(x, m)
      p = Pow(d, two)
      v = ReduceMean <axes = [-1]> (p)
      a = Add(v, eps)
      s = Sqrt(a)
      n = Div(d, s)
      g1 = Mul(n, gamma)
      y = Add(g1, beta)
    })", 16), FusedModel(R"(g (float[2,8] x) => (float[2,8] y) )" + Inits("") + R"( {
      y = kiln.fused.LayerNorm <value_c0 = float {2}, value_c1 = float {1e-05}, axes_0 = [-1], axes_3 = [-1]> (x, gamma, beta)
    })", 16)});

  // A mean without keepdims broadcasts along the last axis: no LayerNorm (nor an RMSNorm of x - m).
  c.push_back({"layer_norm_to_standard", "MeanWithoutKeepdims", Expect::kNoCandidate, OnnxModel(R"(
    g (float[8,8] x) => (float[8,8] y) )" + Inits("float two = {2.0}, float eps = {1e-5}") + R"( {
      m = ReduceMean <axes = [-1], keepdims = 0> (x)
      d = Sub(x, m)
      p = Pow(d, two)
      v = ReduceMean <axes = [-1]> (p)
      a = Add(v, eps)
      s = Sqrt(a)
      n = Div(d, s)
      g1 = Mul(n, gamma)
      y = Add(g1, beta)
    })")});
  c.back().disable = "affine,rms_norm";  // rms_norm: d * rsqrt(mean(d^2) + eps) is an RMSNorm of d


  // ---- layer_norm: the fused LayerNorm where the standard op is not there (or gamma is not constant)
  c.push_back({"layer_norm", "Opset13PowDiv", Expect::kFires, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) )" + Inits("float two = {2.0}, float eps = {1e-5}") + R"( {
      m = ReduceMean <axes = [-1]> (x)
      d = Sub(x, m)
      p = Pow(d, two)
      v = ReduceMean <axes = [-1]> (p)
      a = Add(v, eps)
      s = Sqrt(a)
      n = Div(d, s)
      g1 = Mul(n, gamma)
      y = Add(g1, beta)
    })", 13), FusedModel(R"(g (float[2,8] x) => (float[2,8] y) )" + Inits("") + R"( {
      y = kiln.fused.LayerNorm <value_c0 = float {2}, value_c1 = float {1e-05}, axes_0 = [-1], axes_3 = [-1]> (x, gamma, beta)
    })", 13), "Constant Constant ReduceMean Sub Pow ReduceMean Add Sqrt Div Mul Add"});
  c.back().numerics = true;

  // The fp16 path: Sub cast to float (read by Pow and Div), the quotient cast back before the affine part.
  c.push_back({"layer_norm", "Fp16Casts", Expect::kFires, OnnxModel(R"(
    g (float16[2,8] x, float16[8] gamma, float16[8] beta) => (float16[2,8] y) <float two = {2.0}, float eps = {1e-5}> {
      m = ReduceMean <axes = [-1]> (x)
      d = Sub(x, m)
      df = Cast <to = 1> (d)
      p = Pow(df, two)
      v = ReduceMean <axes = [-1]> (p)
      a = Add(v, eps)
      s = Sqrt(a)
      n = Div(df, s)
      nh = Cast <to = 10> (n)
      g1 = Mul(nh, gamma)
      y = Add(g1, beta)
    })"), FusedModel(R"(g (float16[2,8] x, float16[8] gamma, float16[8] beta) => (float16[2,8] y) {
      y = kiln.fused.LayerNorm <value_c0 = float {2}, value_c1 = float {1e-05}, axes_0 = [-1], to_2 = 1, axes_4 = [-1], to_8 = 10> (x, gamma, beta)
    })"), "Constant Constant ReduceMean Sub Cast Pow ReduceMean Add Sqrt Div Cast Mul Add"});

  // Older PyTorch: the mean read by two Subs; Mul(d, d) for the square, Mul-Reciprocal for the division, gamma and
  // beta from graph inputs, a Cast of the result (into the group), at opset 18 with the axes as an input.
  c.push_back({"layer_norm", "DuplicatedSubTrailingCastAxesInput", Expect::kFires, OnnxModel(R"(
    g (float[2,8] x, float[8] gamma, float[8] beta) => (double[2,8] y) <float eps = {1e-5}, int64[1] ax = {-1}> {
      m = ReduceMean(x, ax)
      d1 = Sub(x, m)
      d2 = Sub(x, m)
      p = Mul(d1, d1)
      v = ReduceMean(p, ax)
      a = Add(v, eps)
      s = Sqrt(a)
      r = Reciprocal(s)
      n = Mul(d2, r)
      g1 = Mul(gamma, n)
      b1 = Add(g1, beta)
      y = Cast <to = 11> (b1)
    })", 18), FusedModel(R"(g (float[2,8] x, float[8] gamma, float[8] beta) => (double[2,8] y) {
      y = kiln.fused.LayerNorm <value_c0 = int64[1] {-1}, value_c1 = float {1e-05}, to_11 = 11> (x, gamma, beta)
    })", 18), "Constant Constant ReduceMean Sub Sub Mul ReduceMean Add Sqrt Reciprocal Mul Mul Add Cast"});
  c.back().verify = false;  // onnx 1.12 knows ReduceMean up to opset 13 (axes an attribute)

  c.push_back({"layer_norm", "MeanIsAGraphOutput", Expect::kRejected, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y, float[2,1] m) )" + Inits("float two = {2.0}, float eps = {1e-5}") + R"( {
      m = ReduceMean <axes = [-1]> (x)
      d = Sub(x, m)
      p = Pow(d, two)
      v = ReduceMean <axes = [-1]> (p)
      a = Add(v, eps)
      s = Sqrt(a)
      n = Div(d, s)
      g1 = Mul(n, gamma)
      y = Add(g1, beta)
    })", 13)});
  c.back().reason = "value 'm' of node 'ReduceMean' (ReduceMean) is a graph output";
  c.back().disable = "layer_norm_no_affine,rms_norm,affine";

  // ---- layer_norm_no_affine (elementwise_affine=False)
  c.push_back({"layer_norm_no_affine", "PowDiv", Expect::kFires, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) <float two = {2.0}, float eps = {1e-5}> {
      m = ReduceMean <axes = [-1]> (x)
      d = Sub(x, m)
      p = Pow(d, two)
      v = ReduceMean <axes = [-1]> (p)
      a = Add(v, eps)
      s = Sqrt(a)
      y = Div(d, s)
    })"), FusedModel(R"(g (float[2,8] x) => (float[2,8] y) {
      y = kiln.fused.LayerNorm <value_c0 = float {2}, value_c1 = float {1e-05}, axes_0 = [-1], axes_3 = [-1]> (x)
    })"), "Constant Constant ReduceMean Sub Pow ReduceMean Add Sqrt Div"});
  c.back().numerics = true;

  c.push_back({"layer_norm_no_affine", "MulSquareMulReciprocalRank3", Expect::kFires, OnnxModel(R"(
    g (float[2,3,8] x) => (float[2,3,8] y) <float eps = {1e-6}> {
      m = ReduceMean <axes = [2]> (x)
      d = Sub(x, m)
      p = Mul(d, d)
      v = ReduceMean <axes = [-1]> (p)
      a = Add(eps, v)
      s = Sqrt(a)
      r = Reciprocal(s)
      y = Mul(r, d)
    })"), FusedModel(R"(g (float[2,3,8] x) => (float[2,3,8] y) {
      y = kiln.fused.LayerNorm <value_c0 = float {1e-06}, axes_0 = [2], axes_3 = [-1]> (x)
    })"), "Constant ReduceMean Sub Mul ReduceMean Add Sqrt Reciprocal Mul"});
  c.back().numerics = true;

  // The mean of another value subtracted: no LayerNorm.
  c.push_back({"layer_norm_no_affine", "MeanOfAnotherValue", Expect::kNoCandidate, OnnxModel(R"(
    g (float[2,8] x, float[2,8] z) => (float[2,8] y) <float two = {2.0}, float eps = {1e-5}> {
      m = ReduceMean <axes = [-1]> (z)
      d = Sub(x, m)
      p = Pow(d, two)
      v = ReduceMean <axes = [-1]> (p)
      a = Add(v, eps)
      s = Sqrt(a)
      y = Div(d, s)
    })")});

  // ---- add_layer_norm: the residual Add and the decomposed LayerNorm after it
  c.push_back({"add_layer_norm", "Opset13PowDiv", Expect::kFires, OnnxModel(R"(
    g (float[2,8] h, float[2,8] r) => (float[2,8] y) )" + Inits("float two = {2.0}, float eps = {1e-5}") + R"( {
      x = Add(h, r)
      m = ReduceMean <axes = [-1]> (x)
      d = Sub(x, m)
      p = Pow(d, two)
      v = ReduceMean <axes = [-1]> (p)
      a = Add(v, eps)
      s = Sqrt(a)
      n = Div(d, s)
      g1 = Mul(n, gamma)
      y = Add(g1, beta)
    })", 13), FusedModel(R"(g (float[2,8] h, float[2,8] r) => (float[2,8] y) )" + Inits("") + R"( {
      y = kiln.fused.AddLayerNorm <value_c0 = float {2}, value_c1 = float {1e-05}, axes_1 = [-1], axes_4 = [-1]> (h, r, gamma, beta)
    })", 13), "Constant Constant Add ReduceMean Sub Pow ReduceMean Add Sqrt Div Mul Add"});
  c.back().numerics = true;

  c.push_back({"add_layer_norm", "Opset16MulSquareMulReciprocal", Expect::kFires, OnnxModel(R"(
    g (float[2,8] h, float[2,8] r) => (float[2,8] y) )" + Inits("float eps = {1e-5}") + R"( {
      x = Add(r, h)
      m = ReduceMean <axes = [-1]> (x)
      d = Sub(x, m)
      p = Mul(d, d)
      v = ReduceMean <axes = [-1]> (p)
      a = Add(v, eps)
      s = Sqrt(a)
      q = Reciprocal(s)
      n = Mul(d, q)
      g1 = Mul(gamma, n)
      y = Add(beta, g1)
    })", 16), FusedModel(R"(g (float[2,8] h, float[2,8] r) => (float[2,8] y) )" + Inits("") + R"( {
      y = kiln.fused.AddLayerNorm <value_c0 = float {1e-05}, axes_1 = [-1], axes_4 = [-1]> (r, h, gamma, beta)
    })", 16), "Constant Add ReduceMean Sub Mul ReduceMean Add Sqrt Reciprocal Mul Mul Add"});
  c.back().numerics = true;

  // The sum is the next residual (a graph output here): rejected; the LayerNorm alone is fused.
  c.push_back({"add_layer_norm", "SumReadOutside", Expect::kRejected, OnnxModel(R"(
    g (float[2,8] h, float[2,8] r) => (float[2,8] y, float[2,8] x) )" + Inits("float two = {2.0}, float eps = {1e-5}") + R"( {
      x = Add(h, r)
      m = ReduceMean <axes = [-1]> (x)
      d = Sub(x, m)
      p = Pow(d, two)
      v = ReduceMean <axes = [-1]> (p)
      a = Add(v, eps)
      s = Sqrt(a)
      n = Div(d, s)
      g1 = Mul(n, gamma)
      y = Add(g1, beta)
    })", 13), FusedModel(R"(g (float[2,8] h, float[2,8] r) => (float[2,8] y, float[2,8] x) )" + Inits("") + R"( {
      x = Add(h, r)
      y = kiln.fused.LayerNorm <value_c0 = float {2}, value_c1 = float {1e-05}, axes_0 = [-1], axes_3 = [-1]> (x, gamma, beta)
    })", 13)});
  c.back().reason = "value 'x' of node 'Add' (Add) is a graph output";

  // ---- add_layer_norm_standard: LayerNormalization after the residual Add
  c.push_back({"add_layer_norm_standard", "WithBias", Expect::kFires, OnnxModel(R"(
    g (float[2,8] h, float[2,8] r) => (float[2,8] y) )" + Inits("") + R"( {
      x = Add(h, r)
      y = LayerNormalization <epsilon = 1e-5> (x, gamma, beta)
    })"), FusedModel(R"(g (float[2,8] h, float[2,8] r) => (float[2,8] y) )" + Inits("") + R"( {
      y = kiln.fused.AddLayerNorm <epsilon_1 = 1e-05> (h, r, gamma, beta)
    })"), "Add LayerNormalization"});
  c.back().numerics = true;

  c.push_back({"add_layer_norm_standard", "WithoutBias", Expect::kFires, OnnxModel(R"(
    g (float[2,8] h, float[2,8] r) => (float[2,8] y) )" + Inits("") + R"( {
      x = Add(r, h)
      y = LayerNormalization (x, gamma)
    })"), FusedModel(R"(g (float[2,8] h, float[2,8] r) => (float[2,8] y) )" + Inits("") + R"( {
      y = kiln.fused.AddLayerNorm (r, h, gamma)
    })"), "Add LayerNormalization"});
  c.back().numerics = true;

  // Decomposed at opset 17: round one writes LayerNormalization, round two fuses the Add into it.
  c.push_back({"add_layer_norm_standard", "AfterLayerNormToStandard", Expect::kFires, OnnxModel(R"(
    g (float[2,8] h, float[2,8] r) => (float[2,8] y) )" + Inits("float two = {2.0}, float eps = {1e-5}") + R"( {
      x = Add(h, r)
      m = ReduceMean <axes = [-1]> (x)
      d = Sub(x, m)
      p = Pow(d, two)
      v = ReduceMean <axes = [-1]> (p)
      a = Add(v, eps)
      s = Sqrt(a)
      n = Div(d, s)
      g1 = Mul(n, gamma)
      y = Add(g1, beta)
    })"), FusedModel(R"(g (float[2,8] h, float[2,8] r) => (float[2,8] y) )" + Inits("") + R"( {
      y = kiln.fused.AddLayerNorm <axis_1 = -1, epsilon_1 = 1e-05> (h, r, gamma, beta)
    })"), "Add LayerNormalization"});
  c.back().numerics = true;

  c.push_back({"add_layer_norm_standard", "SumReadOutside", Expect::kRejected, OnnxModel(R"(
    g (float[2,8] h, float[2,8] r) => (float[2,8] y, float[2,8] z) )" + Inits("") + R"( {
      x = Add(h, r)
      y = LayerNormalization (x, gamma, beta)
      z = Relu(x)
    })")});
  c.back().reason = "value 'x' of node 'Add' (Add) is read by node 'Relu' (Relu) outside the group";

  // ---- rms_norm
  // LlamaRMSNorm: the input cast to float, rsqrt as Div(1, Sqrt), the product cast back, weight on the left.
  c.push_back({"rms_norm", "LlamaCastsDivOneSqrt", Expect::kFires, OnnxModel(R"(
    g (double[2,8] x) => (double[2,8] y) <double[8] w = {1, 2, 3, 4, 5, 6, 7, 8}, float two = {2.0}, float one = {1.0}, float eps = {1e-6}> {
      h = Cast <to = 1> (x)
      p = Pow(h, two)
      v = ReduceMean <axes = [-1]> (p)
      a = Add(v, eps)
      s = Sqrt(a)
      r = Div(one, s)
      n = Mul(h, r)
      nd = Cast <to = 11> (n)
      y = Mul(w, nd)
    })"), FusedModel(R"(g (double[2,8] x) => (double[2,8] y) <double[8] w = {1, 2, 3, 4, 5, 6, 7, 8}> {
      y = kiln.fused.RMSNorm <value_c0 = float {2}, value_c1 = float {1e-06}, value_c2 = float {1}, to_0 = 1, axes_2 = [-1], to_7 = 11> (x, w)
    })"), "Constant Constant Constant Cast Pow ReduceMean Add Sqrt Div Mul Cast Mul"});
  c.back().numerics = true;

  // T5LayerNorm without casts: Mul(h, h), Reciprocal(Sqrt), weight on the right.
  c.push_back({"rms_norm", "T5MulSquareReciprocal", Expect::kFires, OnnxModel(R"(
    g (float[2,3,8] x) => (float[2,3,8] y) )" + Inits("float eps = {1e-6}") + R"( {
      p = Mul(x, x)
      v = ReduceMean <axes = [-1]> (p)
      a = Add(v, eps)
      s = Sqrt(a)
      r = Reciprocal(s)
      n = Mul(r, x)
      y = Mul(n, gamma)
    })"), FusedModel(R"(g (float[2,3,8] x) => (float[2,3,8] y) )" + Inits("") + R"( {
      y = kiln.fused.RMSNorm <value_c0 = float {1e-06}, axes_1 = [-1]> (x, gamma)
    })"), "Constant Mul ReduceMean Add Sqrt Reciprocal Mul Mul"});
  c.back().numerics = true;

  // ORT's SimplifiedLayerNorm form: x divided by the root.
  c.push_back({"rms_norm", "DivBySqrt", Expect::kFires, OnnxModel(R"(
    g (float[2,8] x, float[8] w) => (float[2,8] y) <float two = {2.0}, float eps = {1e-6}> {
      p = Pow(x, two)
      v = ReduceMean <axes = [-1]> (p)
      a = Add(v, eps)
      s = Sqrt(a)
      n = Div(x, s)
      y = Mul(n, w)
    })"), FusedModel(R"(g (float[2,8] x, float[8] w) => (float[2,8] y) {
      y = kiln.fused.RMSNorm <value_c0 = float {2}, value_c1 = float {1e-06}, axes_1 = [-1]> (x, w)
    })"), "Constant Constant Pow ReduceMean Add Sqrt Div Mul"});
  c.back().numerics = true;

  // The mean of cubes is no RMSNorm.
  c.push_back({"rms_norm", "CubeInsteadOfSquare", Expect::kNoCandidate, OnnxModel(R"(
    g (float[2,8] x) => (float[2,8] y) )" + Inits("float three = {3.0}, float eps = {1e-6}") + R"( {
      p = Pow(x, three)
      v = ReduceMean <axes = [-1]> (p)
      a = Add(v, eps)
      s = Sqrt(a)
      r = Reciprocal(s)
      n = Mul(x, r)
      y = Mul(n, gamma)
    })")});

  // A mean of squares without keepdims divides along the wrong axis.
  c.push_back({"rms_norm", "MeanWithoutKeepdims", Expect::kNoCandidate, OnnxModel(R"(
    g (float[8,8] x) => (float[8,8] y) )" + Inits("float two = {2.0}, float eps = {1e-6}") + R"( {
      p = Pow(x, two)
      v = ReduceMean <axes = [-1], keepdims = 0> (p)
      a = Add(v, eps)
      s = Sqrt(a)
      r = Reciprocal(s)
      n = Mul(x, r)
      y = Mul(n, gamma)
    })")});

  // ---- add_rms_norm: the residual Add first; the sum, read by the next block too, is a second output.
  c.push_back({"add_rms_norm", "SumIsTheNextResidual", Expect::kFires, OnnxModel(R"(
    g (float[2,8] h, float[2,8] r) => (float[2,8] y, float[2,8] x) )" + Inits("float two = {2.0}, float eps = {1e-6}") + R"( {
      x = Add(h, r)
      p = Pow(x, two)
      v = ReduceMean <axes = [-1]> (p)
      a = Add(v, eps)
      s = Sqrt(a)
      q = Reciprocal(s)
      n = Mul(x, q)
      y = Mul(gamma, n)
    })"), FusedModel(R"(g (float[2,8] h, float[2,8] r) => (float[2,8] y, float[2,8] x) )" + Inits("") + R"( {
      y, x = kiln.fused.AddRMSNorm <value_c0 = float {2}, value_c1 = float {1e-06}, axes_2 = [-1]> (h, r, gamma)
    })"), "Constant Constant Add Pow ReduceMean Add Sqrt Reciprocal Mul Mul"});
  c.back().numerics = true;

  c.push_back({"add_rms_norm", "DivOneSqrtSumInside", Expect::kFires, OnnxModel(R"(
    g (float[2,8] h, float[2,8] r) => (float[2,8] y) )" + Inits("float one = {1.0}, float eps = {1e-6}") + R"( {
      x = Add(r, h)
      p = Mul(x, x)
      v = ReduceMean <axes = [-1]> (p)
      a = Add(eps, v)
      s = Sqrt(a)
      q = Div(one, s)
      n = Mul(q, x)
      y = Mul(n, gamma)
    })"), FusedModel(R"(g (float[2,8] h, float[2,8] r) => (float[2,8] y) )" + Inits("") + R"( {
      y = kiln.fused.AddRMSNorm <value_c0 = float {1e-06}, value_c1 = float {1}, axes_2 = [-1]> (r, h, gamma)
    })"), "Constant Constant Add Mul ReduceMean Add Sqrt Div Mul Mul"});
  c.back().numerics = true;

  // gamma computed from the sum outside the group: a path leaves the group and comes back (a cycle once fused).
  c.push_back({"add_rms_norm", "WeightComputedFromTheSum", Expect::kRejected, OnnxModel(R"(
    g (float[8] h, float[8] r) => (float[8] y) <float two = {2.0}, float eps = {1e-6}> {
      x = Add(h, r)
      gamma = Neg(x)
      p = Pow(x, two)
      v = ReduceMean <axes = [-1]> (p)
      a = Add(v, eps)
      s = Sqrt(a)
      q = Reciprocal(s)
      n = Mul(x, q)
      y = Mul(gamma, n)
    })")});
  c.back().reason = "the group is not convex";
  c.back().disable = "rms_norm";
  return c;
}

}  // namespace

KILN_FUSION_GOLDENS(norms, Cases);

}  // namespace kiln::testing
