// Golden cases of configs/fusion/attention.yaml: BERT's self-attention from the hidden state to the merged heads
// (fusion-facts §1.7, §1.9: projections with or without bias, K transposed once or twice, scores divided,
// multiplied or not scaled, masked or not), scaled dot-product attention on given heads (the hand-written form and
// F.scaled_dot_product_attention's export, which scales q and k), rotary embeddings (§1.8) with constant and with
// computed cos/sin, and HF BERT's additive mask (opset 11 and 13, with and without the Cast).
#include "fusion/golden_case.h"

namespace kiln::testing {
namespace {

// n floats in ONNX text, small and varied (so that softmax and the projections are not trivial).
std::string Floats(int n, int seed) {
  std::string s;
  for (int i = 0; i < n; ++i) {
    int v = (i * 7 + seed * 13) % 11 - 5;
    s += (i ? ", " : "") + std::to_string(v * 0.1).substr(0, v < 0 ? 4 : 3);
  }
  return s;
}

// Weights and biases of the three 8x8 projections, the head shape [1, 4, 2, 4] and the merged shape [1, 4, 8].
std::string Projections(bool bias) {
  std::string s = "float[8,8] wq = {" + Floats(64, 1) + "}, float[8,8] wk = {" + Floats(64, 2) +
                  "}, float[8,8] wv = {" + Floats(64, 3) + "}";
  if (bias)
    s += ", float[8] bq = {" + Floats(8, 4) + "}, float[8] bk = {" + Floats(8, 5) + "}, float[8] bv = {" +
         Floats(8, 6) + "}";
  return s + ", int64[4] heads = {1, 4, 2, 4}, int64[3] merged = {1, 4, 8}";
}

std::vector<GoldenCase> Cases() {
  std::vector<GoldenCase> c;

  // ---- multi_head_attention
  c.push_back({"multi_head_attention", "BertBiasDivMask", Expect::kFires, OnnxModel(R"(
    g (float[1,4,8] x, float[1,1,1,4] mask) => (float[1,4,8] y) <)" + Projections(true) + R"(, float c = {2.0}> {
      q0 = MatMul(x, wq)
      q1 = Add(q0, bq)
      q2 = Reshape(q1, heads)
      qh = Transpose <perm = [0, 2, 1, 3]> (q2)
      k0 = MatMul(x, wk)
      k1 = Add(bk, k0)
      k2 = Reshape(k1, heads)
      kt = Transpose <perm = [0, 2, 3, 1]> (k2)
      v0 = MatMul(x, wv)
      v1 = Add(v0, bv)
      v2 = Reshape(v1, heads)
      vh = Transpose <perm = [0, 2, 1, 3]> (v2)
      qk = MatMul(qh, kt)
      sc = Div(qk, c)
      sm = Add(sc, mask)
      p = Softmax <axis = -1> (sm)
      o = MatMul(p, vh)
      ot = Transpose <perm = [0, 2, 1, 3]> (o)
      y = Reshape(ot, merged)
    })"), FusedModel(R"(g (float[1,4,8] x, float[1,1,1,4] mask) => (float[1,4,8] y) <)" + Projections(true) + R"(> {
      y = kiln.fused.MultiHeadAttention <value_c0 = float {2}, perm_3 = [0, 2, 1, 3], perm_7 = [0, 2, 3, 1], perm_11 = [0, 2, 1, 3], axis_15 = -1, perm_17 = [0, 2, 1, 3]> (x, wq, bq, heads, wk, bk, wv, bv, mask, merged)
    })"), "Constant MatMul Add Reshape Transpose MatMul Add Reshape Transpose MatMul Add Reshape Transpose MatMul Div Add Softmax MatMul Transpose Reshape"});
  c.back().numerics = true;

  c.push_back({"multi_head_attention", "NoBiasKTransposedTwiceMulNoMask", Expect::kFires, OnnxModel(R"(
    g (float[1,4,8] x) => (float[1,4,8] y) <)" + Projections(false) + R"(, float c = {0.5}> {
      q0 = MatMul(x, wq)
      q2 = Reshape(q0, heads)
      qh = Transpose <perm = [0, 2, 1, 3]> (q2)
      k0 = MatMul(x, wk)
      k2 = Reshape(k0, heads)
      k3 = Transpose <perm = [0, 2, 1, 3]> (k2)
      kt = Transpose <perm = [0, 1, 3, 2]> (k3)
      v0 = MatMul(x, wv)
      v2 = Reshape(v0, heads)
      vh = Transpose <perm = [0, 2, 1, 3]> (v2)
      qk = MatMul(qh, kt)
      sc = Mul(c, qk)
      p = Softmax(sc)
      o = MatMul(p, vh)
      ot = Transpose <perm = [0, 2, 1, 3]> (o)
      y = Reshape(ot, merged)
    })", 13), FusedModel(R"(g (float[1,4,8] x) => (float[1,4,8] y) <)" + Projections(false) + R"(> {
      y = kiln.fused.MultiHeadAttention <value_c0 = float {0.5}, perm_2 = [0, 2, 1, 3], perm_5 = [0, 2, 1, 3], perm_6 = [0, 1, 3, 2], perm_9 = [0, 2, 1, 3], perm_14 = [0, 2, 1, 3]> (x, wq, heads, wk, wv, merged)
    })", 13), "Constant MatMul Reshape Transpose MatMul Reshape Transpose Transpose MatMul Reshape Transpose MatMul Mul Softmax MatMul Transpose Reshape"});
  c.back().numerics = true;

  // The heads merged without their transpose back: no MultiHeadAttention (the attention core alone, switched
  // off here).
  c.push_back({"multi_head_attention", "HeadsNotTransposedBack", Expect::kNoCandidate, OnnxModel(R"(
    g (float[1,4,8] x) => (float[1,4,8] y) <)" + Projections(false) + R"(> {
      q0 = MatMul(x, wq)
      q2 = Reshape(q0, heads)
      qh = Transpose <perm = [0, 2, 1, 3]> (q2)
      k0 = MatMul(x, wk)
      k2 = Reshape(k0, heads)
      kt = Transpose <perm = [0, 2, 3, 1]> (k2)
      v0 = MatMul(x, wv)
      v2 = Reshape(v0, heads)
      vh = Transpose <perm = [0, 2, 1, 3]> (v2)
      qk = MatMul(qh, kt)
      p = Softmax(qk)
      o = MatMul(p, vh)
      y = Reshape(o, merged)
    })")});
  c.back().disable = "scaled_dot_product_attention";

  // ---- scaled_dot_product_attention
  c.push_back({"scaled_dot_product_attention", "DivAndMask", Expect::kFires, OnnxModel(R"(
    g (float[1,2,4,4] q, float[1,2,4,4] kt, float[1,2,4,4] v, float[1,1,1,4] mask) => (float[1,2,4,4] y) <float c = {2.0}> {
      qk = MatMul(q, kt)
      sc = Div(qk, c)
      sm = Add(mask, sc)
      p = Softmax <axis = -1> (sm)
      y = MatMul(p, v)
    })"), FusedModel(R"(g (float[1,2,4,4] q, float[1,2,4,4] kt, float[1,2,4,4] v, float[1,1,1,4] mask) => (float[1,2,4,4] y) {
      y = kiln.fused.Attention <value_c0 = float {2}, axis_3 = -1> (q, kt, mask, v)
    })"), "Constant MatMul Div Add Softmax MatMul"});
  c.back().numerics = true;

  // F.scaled_dot_product_attention's export: q and k each scaled by sqrt(1 / sqrt(d)), then masked.
  c.push_back({"scaled_dot_product_attention", "SdpaExportScalesQAndK", Expect::kFires, OnnxModel(R"(
    g (float[1,2,4,4] q, float[1,2,4,4] k, float[1,2,4,4] v, float[1,1,4,4] mask) => (float[1,2,4,4] y) <float cs = {0.70710677}> {
      kt = Transpose <perm = [0, 1, 3, 2]> (k)
      qs = Mul(q, cs)
      ks = Mul(kt, cs)
      qk = MatMul(qs, ks)
      sm = Add(qk, mask)
      p = Softmax <axis = -1> (sm)
      y = MatMul(p, v)
    })", 14), FusedModel(R"(g (float[1,2,4,4] q, float[1,2,4,4] k, float[1,2,4,4] v, float[1,1,4,4] mask) => (float[1,2,4,4] y) {
      kt = Transpose <perm = [0, 1, 3, 2]> (k)
      y = kiln.fused.Attention <value_c0 = float {0.70710677}, axis_4 = -1> (q, kt, mask, v)
    })", 14), "Constant Mul Mul MatMul Add Softmax MatMul"});
  c.back().numerics = true;

  c.push_back({"scaled_dot_product_attention", "NoScaleNoMask", Expect::kFires, OnnxModel(R"(
    g (float[1,2,4,4] q, float[1,2,4,4] kt, float[1,2,4,4] v) => (float[1,2,4,4] y) {
      qk = MatMul(q, kt)
      p = Softmax(qk)
      y = MatMul(p, v)
    })", 13), FusedModel(R"(g (float[1,2,4,4] q, float[1,2,4,4] kt, float[1,2,4,4] v) => (float[1,2,4,4] y) {
      y = kiln.fused.Attention(q, kt, v)
    })", 13), "MatMul Softmax MatMul"});
  c.back().numerics = true;

  c.push_back({"scaled_dot_product_attention", "SoftmaxOverHeads", Expect::kNoCandidate, OnnxModel(R"(
    g (float[1,2,4,4] q, float[1,2,4,4] kt, float[1,2,4,4] v) => (float[1,2,4,4] y) {
      qk = MatMul(q, kt)
      p = Softmax <axis = 1> (qk)
      y = MatMul(p, v)
    })")});

  // Opset 11: Softmax without an axis works on the input flattened from axis 1, not on the last axis.
  c.push_back({"scaled_dot_product_attention", "Opset11DefaultAxis", Expect::kNoCandidate, OnnxModel(R"(
    g (float[1,2,4,4] q, float[1,2,4,4] kt, float[1,2,4,4] v) => (float[1,2,4,4] y) {
      qk = MatMul(q, kt)
      p = Softmax(qk)
      y = MatMul(p, v)
    })", 11)});

  // ---- rotary_embedding (constant cos and sin)
  const std::string cos_sin = "float[1,1,4,4] cos = {" + Floats(16, 7) + "}, float[1,1,4,4] sin = {" + Floats(16, 8) + "}";
  const std::string slices = "int64[1] h = {2}, int64[1] e = {9223372036854775807}, int64[1] z = {0}, int64[1] ax = {-1}";
  c.push_back({"rotary_embedding", "RotateHalf", Expect::kFires, OnnxModel(R"(
    g (float[1,2,4,4] x) => (float[1,2,4,4] y) <)" + cos_sin + ", " + slices + R"(> {
      x2 = Slice(x, h, e, ax)
      x1 = Slice(x, z, h, ax)
      n2 = Neg(x2)
      r = Concat <axis = -1> (n2, x1)
      a = Mul(x, cos)
      b = Mul(r, sin)
      y = Add(a, b)
    })"), FusedModel(R"(g (float[1,2,4,4] x) => (float[1,2,4,4] y) <)" + cos_sin + R"(> {
      y = kiln.fused.RotaryEmbedding <value_c0 = int64[1] {2}, value_c1 = int64[1] {9223372036854775807}, value_c2 = int64[1] {-1}, value_c3 = int64[1] {0}, axis_3 = -1> (x, cos, sin)
    })"), "Constant Constant Constant Constant Slice Slice Neg Concat Mul Mul Add"});
  c.back().numerics = true;

  c.push_back({"rotary_embedding", "OperandsSwappedAxis3Steps", Expect::kFires, OnnxModel(R"(
    g (float[1,2,4,4] x) => (float[1,2,4,4] y) <)" + cos_sin + ", " + slices + R"(, int64[1] ax3 = {3}, int64[1] one = {1}> {
      x1 = Slice(x, z, h, ax3, one)
      x2 = Slice(x, h, e, ax3, one)
      n2 = Neg(x2)
      r = Concat <axis = 3> (n2, x1)
      a = Mul(cos, x)
      b = Mul(sin, r)
      y = Add(b, a)
    })"), FusedModel(R"(g (float[1,2,4,4] x) => (float[1,2,4,4] y) <)" + cos_sin + R"(> {
      y = kiln.fused.RotaryEmbedding <value_c0 = int64[1] {0}, value_c1 = int64[1] {2}, value_c2 = int64[1] {3}, value_c3 = int64[1] {1}, value_c4 = int64[1] {9223372036854775807}, axis_3 = 3> (x, cos, sin)
    })"), "Constant Constant Constant Constant Constant Slice Slice Neg Concat Mul Mul Add"});
  c.back().numerics = true;

  // cos and sin computed: not this rule (rotary_embedding_dynamic takes it).
  c.push_back({"rotary_embedding", "CosFromAGraphInput", Expect::kNoCandidate, OnnxModel(R"(
    g (float[1,2,4,4] x, float[1,1,4,4] cos, float[1,1,4,4] sin) => (float[1,2,4,4] y) <)" + slices + R"(> {
      x2 = Slice(x, h, e, ax)
      x1 = Slice(x, z, h, ax)
      n2 = Neg(x2)
      r = Concat <axis = -1> (n2, x1)
      a = Mul(x, cos)
      b = Mul(r, sin)
      y = Add(a, b)
    })")});
  c.back().disable = "rotary_embedding_dynamic";

  // ---- rotary_embedding_dynamic
  c.push_back({"rotary_embedding_dynamic", "CosSinGathered", Expect::kFires, OnnxModel(R"(
    g (float[1,2,4,4] x, float[8,4] cache_c, float[8,4] cache_s, int64[4] pos) => (float[1,2,4,4] y) <)" + slices + R"(, int64[2] ax01 = {0, 1}> {
      gc = Gather(cache_c, pos)
      cos = Unsqueeze(gc, ax01)
      gs = Gather(cache_s, pos)
      sin = Unsqueeze(gs, ax01)
      x2 = Slice(x, h, e, ax)
      x1 = Slice(x, z, h, ax)
      n2 = Neg(x2)
      r = Concat <axis = -1> (n2, x1)
      a = Mul(x, cos)
      b = Mul(r, sin)
      y = Add(a, b)
    })"), FusedModel(R"(g (float[1,2,4,4] x, float[8,4] cache_c, float[8,4] cache_s, int64[4] pos) => (float[1,2,4,4] y) <int64[2] ax01 = {0, 1}> {
      gc = Gather(cache_c, pos)
      cos = Unsqueeze(gc, ax01)
      gs = Gather(cache_s, pos)
      sin = Unsqueeze(gs, ax01)
      y = kiln.fused.RotaryEmbedding <value_c0 = int64[1] {2}, value_c1 = int64[1] {9223372036854775807}, value_c2 = int64[1] {-1}, value_c3 = int64[1] {0}, axis_3 = -1> (x, cos, sin)
    })"), "Constant Constant Constant Constant Slice Slice Neg Concat Mul Mul Add"});
  c.back().numerics = true;

  // The half size computed from x's shape, as with a symbolic head size; cos on the left.
  c.push_back({"rotary_embedding_dynamic", "HalfSizeFromTheShape", Expect::kFires, OnnxModel(R"(
    g (float[1,2,4,4] x, float[1,1,4,4] cos, float[1,1,4,4] sin) => (float[1,2,4,4] y) <int64[1] e = {9223372036854775807}, int64[1] z = {0}, int64[1] ax = {-1}, int64 last = {-1}, int64 two = {2}> {
      sh = Shape(x)
      d = Gather(sh, last)
      d2 = Div(d, two)
      h = Unsqueeze(d2, z)
      x2 = Slice(x, h, e, ax)
      x1 = Slice(x, z, h, ax)
      n2 = Neg(x2)
      r = Concat <axis = -1> (n2, x1)
      a = Mul(cos, x)
      b = Mul(r, sin)
      y = Add(a, b)
    })"), FusedModel(R"(g (float[1,2,4,4] x, float[1,1,4,4] cos, float[1,1,4,4] sin) => (float[1,2,4,4] y) <int64[1] e = {9223372036854775807}, int64[1] z = {0}, int64[1] ax = {-1}, int64 last = {-1}, int64 two = {2}> {
      sh = Shape(x)
      d = Gather(sh, last)
      d2 = Div(d, two)
      h = Unsqueeze(d2, z)
      y = kiln.fused.RotaryEmbedding <value_c0 = int64[1] {9223372036854775807}, value_c1 = int64[1] {-1}, value_c2 = int64[1] {0}, axis_3 = -1> (x, h, cos, sin)
    })"), "Constant Constant Constant Slice Slice Neg Concat Mul Mul Add"});
  c.back().numerics = true;

  // The halves of another value: no rotation of x.
  c.push_back({"rotary_embedding_dynamic", "HalvesOfAnotherValue", Expect::kNoCandidate, OnnxModel(R"(
    g (float[1,2,4,4] x, float[1,2,4,4] w, float[1,1,4,4] cos, float[1,1,4,4] sin) => (float[1,2,4,4] y) <)" + slices + R"(> {
      x2 = Slice(w, h, e, ax)
      x1 = Slice(w, z, h, ax)
      n2 = Neg(x2)
      r = Concat <axis = -1> (n2, x1)
      a = Mul(x, cos)
      b = Mul(r, sin)
      y = Add(a, b)
    })")});

  // ---- additive_attention_mask
  c.push_back({"additive_attention_mask", "Opset13CastToFloat", Expect::kFires, OnnxModel(R"(
    g (int64[1,4] m) => (float[1,1,1,4] y) <int64[1] a1 = {1}, int64[1] a2 = {2}, float one = {1.0}, float big = {-10000.0}> {
      u1 = Unsqueeze(m, a1)
      u2 = Unsqueeze(u1, a2)
      f = Cast <to = 1> (u2)
      s = Sub(one, f)
      y = Mul(s, big)
    })", 13), FusedModel(R"(g (int64[1,4] m) => (float[1,1,1,4] y) {
      y = kiln.fused.AttentionMask <value_c0 = int64[1] {1}, value_c1 = int64[1] {2}, value_c2 = float {1}, value_c3 = float {-10000}, to_2 = 1> (m)
    })", 13), "Constant Constant Constant Constant Unsqueeze Unsqueeze Cast Sub Mul"});
  c.back().numerics = true;

  // Opset 11: Unsqueeze's axes an attribute; a float mask needs no Cast; the big negative first.
  c.push_back({"additive_attention_mask", "Opset11FloatMaskWithoutCast", Expect::kFires, OnnxModel(R"(
    g (float[1,4] m) => (float[1,1,1,4] y) <float one = {1.0}, float big = {-1e9}> {
      u1 = Unsqueeze <axes = [1]> (m)
      u2 = Unsqueeze <axes = [2]> (u1)
      s = Sub(one, u2)
      y = Mul(big, s)
    })", 11), FusedModel(R"(g (float[1,4] m) => (float[1,1,1,4] y) {
      y = kiln.fused.AttentionMask <value_c0 = float {1}, value_c1 = float {-1e9}, axes_0 = [1], axes_1 = [2]> (m)
    })", 11), "Constant Constant Unsqueeze Unsqueeze Sub Mul"});
  c.back().numerics = true;

  c.push_back({"additive_attention_mask", "TwoMinusMask", Expect::kNoCandidate, OnnxModel(R"(
    g (int64[1,4] m) => (float[1,1,1,4] y) <int64[1] a1 = {1}, int64[1] a2 = {2}, float two = {2.0}, float big = {-10000.0}> {
      u1 = Unsqueeze(m, a1)
      u2 = Unsqueeze(u1, a2)
      f = Cast <to = 1> (u2)
      s = Sub(two, f)
      y = Mul(s, big)
    })", 13)});

  return c;
}

}  // namespace

KILN_FUSION_GOLDENS(attention, Cases);

}  // namespace kiln::testing
