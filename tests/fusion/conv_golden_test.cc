// Golden cases of configs/fusion/conv.yaml: Conv with BatchNormalization and an activation, Conv and an activation
// (ReLU6 as Clip with bound inputs from opset 11, with attributes before), the residual Add of ResNet's bottleneck
// with and without its activation. Convs with and without bias.
#include "fusion/golden_case.h"

namespace kiln::testing {
namespace {

// A 1x1 conv from 2 to 3 channels (24 bytes of weights: a call input) and a bias (12 bytes: embedded).
constexpr const char* kConv = "float[3,2,1,1] w = {1, 0, 0, 1, 1, -1}, float[3] b = {0.5, -0.5, 1}";
// BatchNormalization's scale, shift, mean and variance over 3 channels.
constexpr const char* kBn = "float[3] s = {1, 2, 0.5}, float[3] sh = {0, 1, -1}, float[3] mu = {0.1, 0, -0.1}, float[3] v = {1, 0.5, 2}";

std::string Inits(const std::string& more = "") {
  return std::string("<") + kConv + (more.empty() ? "" : ", " + more) + ">";
}

std::vector<GoldenCase> Cases() {
  std::vector<GoldenCase> c;

  // ---- conv_bn_act
  c.push_back({"conv_bn_act", "ConvBnRelu", Expect::kFires, OnnxModel(R"(
    g (float[1,2,3,3] x) => (float[1,3,3,3] y) )" + Inits(kBn) + R"( {
      z = Conv(x, w, b)
      t = BatchNormalization(z, s, sh, mu, v)
      y = Relu(t)
    })"), FusedModel(R"(g (float[1,2,3,3] x) => (float[1,3,3,3] y) )" + Inits(kBn) + R"( {
      y = kiln.fused.ConvBnAct <value_c0 = float[3] {0.5, -0.5, 1}, value_c1 = float[3] {1, 2, 0.5}, value_c2 = float[3] {0, 1, -1}, value_c3 = float[3] {0.1, 0, -0.1}, value_c4 = float[3] {1, 0.5, 2}> (x, w)
    })"), "Constant Constant Constant Constant Constant Conv BatchNormalization Relu"});
  c.back().numerics = true;

  c.push_back({"conv_bn_act", "NoBiasClip6", Expect::kFires, OnnxModel(R"(
    g (float[1,2,3,3] x, float[3] s, float[3] sh, float[3] mu, float[3] v) => (float[1,3,3,3] y) )" + Inits("float lo = {0.0}, float hi = {6.0}") + R"( {
      z = Conv(x, w)
      t = BatchNormalization <epsilon = 0.001> (z, s, sh, mu, v)
      y = Clip(t, lo, hi)
    })", 13), FusedModel(R"(g (float[1,2,3,3] x, float[3] s, float[3] sh, float[3] mu, float[3] v) => (float[1,3,3,3] y) )" + Inits() + R"( {
      y = kiln.fused.ConvBnAct <value_c0 = float {0}, value_c1 = float {6}, epsilon_1 = 0.001> (x, w, s, sh, mu, v)
    })", 13), "Constant Constant Conv BatchNormalization Clip"});

  // Opset 10: Clip's bounds are attributes.
  c.push_back({"conv_bn_act", "Opset10ClipAttributes", Expect::kFires, OnnxModel(R"(
    g (float[1,2,3,3] x) => (float[1,3,3,3] y) )" + Inits(kBn) + R"( {
      z = Conv(x, w, b)
      t = BatchNormalization(z, s, sh, mu, v)
      y = Clip <min = 0.0, max = 6.0> (t)
    })", 10), FusedModel(R"(g (float[1,2,3,3] x) => (float[1,3,3,3] y) )" + Inits(kBn) + R"( {
      y = kiln.fused.ConvBnAct <value_c0 = float[3] {0.5, -0.5, 1}, value_c1 = float[3] {1, 2, 0.5}, value_c2 = float[3] {0, 1, -1}, value_c3 = float[3] {0.1, 0, -0.1}, value_c4 = float[3] {1, 0.5, 2}, min_2 = 0.0, max_2 = 6.0> (x, w)
    })", 10), "Constant Constant Constant Constant Constant Conv BatchNormalization Clip"});

  c.push_back({"conv_bn_act", "ConvIsAGraphOutput", Expect::kRejected, OnnxModel(R"(
    g (float[1,2,3,3] x) => (float[1,3,3,3] y, float[1,3,3,3] z) )" + Inits(kBn) + R"( {
      z = Conv(x, w, b)
      t = BatchNormalization(z, s, sh, mu, v)
      y = Relu(t)
    })")});
  c.back().reason = "value 'z' of node 'Conv' (Conv) is a graph output";

  // ---- conv_act
  c.push_back({"conv_act", "Relu", Expect::kFires, OnnxModel(R"(
    g (float[1,2,3,3] x) => (float[1,3,3,3] y) )" + Inits() + R"( {
      z = Conv(x, w, b)
      y = Relu(z)
    })"), FusedModel(R"(g (float[1,2,3,3] x) => (float[1,3,3,3] y) )" + Inits() + R"( {
      y = kiln.fused.ConvAct <value_c0 = float[3] {0.5, -0.5, 1}> (x, w)
    })"), "Constant Conv Relu"});
  c.back().numerics = true;

  c.push_back({"conv_act", "NoBiasClip6", Expect::kFires, OnnxModel(R"(
    g (float[1,2,3,3] x) => (float[1,3,3,3] y) )" + Inits("float lo = {0.0}, float hi = {6.0}") + R"( {
      z = Conv(x, w)
      y = Clip(z, lo, hi)
    })", 13), FusedModel(R"(g (float[1,2,3,3] x) => (float[1,3,3,3] y) )" + Inits() + R"( {
      y = kiln.fused.ConvAct <value_c0 = float {0}, value_c1 = float {6}> (x, w)
    })", 13), "Constant Constant Conv Clip"});
  c.back().numerics = true;

  // Opset 10's Clip with attributes (the rule took bound inputs only).
  c.push_back({"conv_act", "Opset10ClipAttributes", Expect::kFires, OnnxModel(R"(
    g (float[1,2,3,3] x) => (float[1,3,3,3] y) )" + Inits() + R"( {
      z = Conv(x, w, b)
      y = Clip <min = 0.0, max = 6.0> (z)
    })", 10), FusedModel(R"(g (float[1,2,3,3] x) => (float[1,3,3,3] y) )" + Inits() + R"( {
      y = kiln.fused.ConvAct <value_c0 = float[3] {0.5, -0.5, 1}, min_1 = 0.0, max_1 = 6.0> (x, w)
    })", 10), "Constant Conv Clip"});
  c.back().numerics = true;

  // Bounds that are no constants: no candidate.
  c.push_back({"conv_act", "ClipBoundsFromInputs", Expect::kNoCandidate, OnnxModel(R"(
    g (float[1,2,3,3] x, float lo, float hi) => (float[1,3,3,3] y) )" + Inits() + R"( {
      z = Conv(x, w, b)
      y = Clip(z, lo, hi)
    })", 13)});

  // ---- conv_add_act: ResNet's bottleneck end
  c.push_back({"conv_add_act", "ResNetRelu", Expect::kFires, OnnxModel(R"(
    g (float[1,2,3,3] x, float[1,3,3,3] r) => (float[1,3,3,3] y) )" + Inits() + R"( {
      z = Conv(x, w, b)
      s = Add(z, r)
      y = Relu(s)
    })"), FusedModel(R"(g (float[1,2,3,3] x, float[1,3,3,3] r) => (float[1,3,3,3] y) )" + Inits() + R"( {
      y = kiln.fused.ConvAddAct <value_c0 = float[3] {0.5, -0.5, 1}> (x, w, r)
    })"), "Constant Conv Add Relu"});
  c.back().numerics = true;

  c.push_back({"conv_add_act", "ResidualFirstClip6", Expect::kFires, OnnxModel(R"(
    g (float[1,2,3,3] x, float[1,3,3,3] r) => (float[1,3,3,3] y) )" + Inits("float lo = {0.0}, float hi = {6.0}") + R"( {
      z = Conv(x, w)
      s = Add(r, z)
      y = Clip(s, lo, hi)
    })", 13), FusedModel(R"(g (float[1,2,3,3] x, float[1,3,3,3] r) => (float[1,3,3,3] y) )" + Inits() + R"( {
      y = kiln.fused.ConvAddAct <value_c0 = float {0}, value_c1 = float {6}> (x, w, r)
    })", 13), "Constant Constant Conv Add Clip"});
  c.back().numerics = true;

  c.push_back({"conv_add_act", "Opset10ClipAttributes", Expect::kFires, OnnxModel(R"(
    g (float[1,2,3,3] x, float[1,3,3,3] r) => (float[1,3,3,3] y) )" + Inits() + R"( {
      z = Conv(x, w, b)
      s = Add(z, r)
      y = Clip <min = 0.0, max = 6.0> (s)
    })", 10), FusedModel(R"(g (float[1,2,3,3] x, float[1,3,3,3] r) => (float[1,3,3,3] y) )" + Inits() + R"( {
      y = kiln.fused.ConvAddAct <value_c0 = float[3] {0.5, -0.5, 1}, min_2 = 0.0, max_2 = 6.0> (x, w, r)
    })", 10), "Constant Conv Add Clip"});
  c.back().numerics = true;

  // The sum is read outside: no ConvAddAct; ConvAdd instead.
  c.push_back({"conv_add_act", "SumReadElsewhere", Expect::kRejected, OnnxModel(R"(
    g (float[1,2,3,3] x, float[1,3,3,3] r) => (float[1,3,3,3] y, float[1,3,3,3] q) )" + Inits() + R"( {
      z = Conv(x, w, b)
      s = Add(z, r)
      y = Relu(s)
      q = Neg(s)
    })"), FusedModel(R"(g (float[1,2,3,3] x, float[1,3,3,3] r) => (float[1,3,3,3] y, float[1,3,3,3] q) )" + Inits() + R"( {
      s = kiln.fused.ConvAdd <value_c0 = float[3] {0.5, -0.5, 1}> (x, w, r)
      y = Relu(s)
      q = Neg(s)
    })")});
  c.back().reason = "value 's' of node 'Add' (Add) is read by node 'Neg' (Neg) outside the group";

  // ---- conv_add: an inverted residual block's projection
  c.push_back({"conv_add", "Projection", Expect::kFires, OnnxModel(R"(
    g (float[1,2,3,3] x, float[1,3,3,3] r) => (float[1,3,3,3] y) )" + Inits() + R"( {
      z = Conv(x, w)
      y = Add(z, r)
    })"), FusedModel(R"(g (float[1,2,3,3] x, float[1,3,3,3] r) => (float[1,3,3,3] y) )" + Inits() + R"( {
      y = kiln.fused.ConvAdd(x, w, r)
    })"), "Conv Add"});
  c.back().numerics = true;

  c.push_back({"conv_add", "ResidualFirstWithBias", Expect::kFires, OnnxModel(R"(
    g (float[1,2,3,3] x, float[1,3,3,3] r) => (float[1,3,3,3] y) )" + Inits() + R"( {
      z = Conv(x, w, b)
      s = Add(r, z)
      y = Sigmoid(s)
    })"), FusedModel(R"(g (float[1,2,3,3] x, float[1,3,3,3] r) => (float[1,3,3,3] y) )" + Inits() + R"( {
      s = kiln.fused.ConvAdd <value_c0 = float[3] {0.5, -0.5, 1}> (x, w, r)
      y = Sigmoid(s)
    })"), "Constant Conv Add"});
  c.back().numerics = true;

  c.push_back({"conv_add", "ConvReadElsewhere", Expect::kRejected, OnnxModel(R"(
    g (float[1,2,3,3] x, float[1,3,3,3] r) => (float[1,3,3,3] y, float[1,3,3,3] q) )" + Inits() + R"( {
      z = Conv(x, w)
      y = Add(z, r)
      q = Abs(z)
    })")});
  c.back().reason = "value 'z' of node 'Conv' (Conv) is read by node 'Abs' (Abs) outside the group";

  return c;
}

}  // namespace

KILN_FUSION_GOLDENS(conv, Cases);

}  // namespace kiln::testing
