// Shared by RNN, LSTM and GRU: the activation functions (with activation_alpha / activation_beta consumed in the
// order of the activations that take them, as ONNX Runtime does), the inputs read into compute-type buffers in
// time-major layout (layout 0 and 1), per-batch sequence lengths, and the Y / Y_h / Y_c outputs written back in
// the node's layout. Gate products go through Eigen.
#pragma once

#include "core/elem_types.h"
#include "core/seq_util.h"

#include <Eigen/Core>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>
#include <vector>

namespace kiln::kernels::rnn {

using seq::Invalid;

template <typename C>
using MatR = Eigen::Matrix<C, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename C>
using MapR = Eigen::Map<MatR<C>>;
template <typename C>
using CMapR = Eigen::Map<const MatR<C>>;

struct Activation {
  enum Kind { kRelu, kTanh, kSigmoid, kAffine, kLeakyRelu, kThresholdedRelu, kScaledTanh, kHardSigmoid, kElu,
              kSoftsign, kSoftplus };
  Kind kind = kTanh;
  float alpha = 0, beta = 0;

  // Applies the function in place to n values, first clipping them to [-clip, clip] when clip > 0.
  template <typename C>
  void Apply(C* v, int64_t n, float clip) const {
    if (clip > 0)
      for (int64_t i = 0; i < n; ++i) v[i] = std::clamp(v[i], C(-clip), C(clip));
    const C a = static_cast<C>(alpha), b = static_cast<C>(beta);
    switch (kind) {
      case kRelu: for (int64_t i = 0; i < n; ++i) v[i] = std::max(v[i], C(0)); break;
      case kTanh: for (int64_t i = 0; i < n; ++i) v[i] = std::tanh(v[i]); break;
      case kSigmoid:
        for (int64_t i = 0; i < n; ++i)
          v[i] = v[i] >= 0 ? C(1) / (C(1) + std::exp(-v[i])) : std::exp(v[i]) / (C(1) + std::exp(v[i]));
        break;
      case kAffine: for (int64_t i = 0; i < n; ++i) v[i] = a * v[i] + b; break;
      case kLeakyRelu: for (int64_t i = 0; i < n; ++i) v[i] = v[i] >= 0 ? v[i] : a * v[i]; break;
      case kThresholdedRelu: for (int64_t i = 0; i < n; ++i) v[i] = v[i] > a ? v[i] : C(0); break;
      case kScaledTanh: for (int64_t i = 0; i < n; ++i) v[i] = a * std::tanh(b * v[i]); break;
      case kHardSigmoid:
        for (int64_t i = 0; i < n; ++i) v[i] = std::clamp(a * v[i] + b, C(0), C(1));
        break;
      case kElu: for (int64_t i = 0; i < n; ++i) v[i] = v[i] >= 0 ? v[i] : a * (std::exp(v[i]) - C(1)); break;
      case kSoftsign: for (int64_t i = 0; i < n; ++i) v[i] = v[i] / (C(1) + std::abs(v[i])); break;
      case kSoftplus: for (int64_t i = 0; i < n; ++i) v[i] = std::log1p(std::exp(v[i])); break;
    }
  }
};

// The activations of every direction: `per_dir` functions per direction (defaults when the attribute is absent).
inline std::vector<Activation> ParseActivations(sdk::KernelContext& ctx, const std::vector<std::string>& defaults,
                                                int64_t dirs) {
  std::vector<std::string> names;
  if (sdk::Attribute a = ctx.Attr("activations")) {
    for (std::string_view s : a.Strings()) names.emplace_back(s);
  } else {
    for (int64_t d = 0; d < dirs; ++d) names.insert(names.end(), defaults.begin(), defaults.end());
  }
  if (names.size() != defaults.size() * static_cast<size_t>(dirs))
    Invalid("activations must list " + std::to_string(defaults.size() * dirs) + " functions, got " +
            std::to_string(names.size()));
  std::vector<float> alphas = ctx.GetFloats("activation_alpha"), betas = ctx.GetFloats("activation_beta");
  size_t ai = 0, bi = 0;
  auto next = [](const std::vector<float>& v, size_t& i, float fallback) { return i < v.size() ? v[i++] : fallback; };
  std::vector<Activation> out;
  for (std::string n : names) {
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
    Activation f;
    if (n == "relu") f.kind = Activation::kRelu;
    else if (n == "tanh") f.kind = Activation::kTanh;
    else if (n == "sigmoid") f.kind = Activation::kSigmoid;
    else if (n == "affine") f = {Activation::kAffine, next(alphas, ai, 1.f), next(betas, bi, 0.f)};
    else if (n == "leakyrelu") f = {Activation::kLeakyRelu, next(alphas, ai, 0.01f), 0};
    else if (n == "thresholdedrelu") f = {Activation::kThresholdedRelu, next(alphas, ai, 1.f), 0};
    else if (n == "scaledtanh") f = {Activation::kScaledTanh, next(alphas, ai, 1.f), next(betas, bi, 1.f)};
    else if (n == "hardsigmoid") f = {Activation::kHardSigmoid, next(alphas, ai, 0.2f), next(betas, bi, 0.5f)};
    else if (n == "elu") f = {Activation::kElu, next(alphas, ai, 1.f), 0};
    else if (n == "softsign") f.kind = Activation::kSoftsign;
    else if (n == "softplus") f.kind = Activation::kSoftplus;
    else Invalid("unknown activation function '" + n + "'");
    out.push_back(f);
  }
  return out;
}

// The inputs of a recurrent node in compute type C, time-major: x is [seq, batch, input]; init_h / init_c are
// [dirs, batch, hidden] (zeros when absent); b is [dirs, 2 * gates * hidden] (zeros when absent).
template <typename C>
struct RecurrentInputs {
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, dirs = 1, gates = 1;
  int layout = 0;
  bool reverse_only = false;
  float clip = 0;
  std::vector<C> x, w, r, b, init_h, init_c, p;
  std::vector<int64_t> lens;
};

template <typename T, typename C>
std::vector<C> ToC(const sdk::TensorView& t) {
  auto v = seq::Data<T>(t);
  std::vector<C> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<C>(static_cast<Compute<T>>(v[i]));
  return out;
}

// Reorders a [a, b, n] buffer to [b, a, n].
template <typename C>
std::vector<C> Swap01(const std::vector<C>& v, int64_t a, int64_t b, int64_t n) {
  std::vector<C> out(v.size());
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j) std::copy_n(&v[(i * b + j) * n], n, &out[(j * a + i) * n]);
  return out;
}

template <typename T, typename C>
RecurrentInputs<C> ReadInputs(sdk::KernelContext& ctx, int64_t gates, const char* op) {
  RecurrentInputs<C> in;
  in.gates = gates;
  in.layout = static_cast<int>(ctx.GetInt("layout", 0));
  in.clip = ctx.GetFloat("clip", 0.f);
  std::string dir = ctx.GetString("direction", "forward");
  if (dir == "bidirectional") in.dirs = 2;
  else if (dir == "reverse") in.reverse_only = true;
  else if (dir != "forward") Invalid(std::string(op) + ": unknown direction '" + dir + "'");
  sdk::TensorView x = ctx.RequiredInput(0), w = ctx.RequiredInput(1), r = ctx.RequiredInput(2);
  if (x.Rank() != 3 || w.Rank() != 3 || r.Rank() != 3) Invalid(std::string(op) + ": X, W and R must have rank 3");
  in.seq = x.Dims()[in.layout == 0 ? 0 : 1];
  in.batch = x.Dims()[in.layout == 0 ? 1 : 0];
  in.input = x.Dims()[2];
  in.hidden = ctx.GetInt("hidden_size", r.Dims()[2]);
  const int64_t gh = gates * in.hidden;
  if (w.Dims()[0] != in.dirs || w.Dims()[1] != gh || w.Dims()[2] != in.input)
    Invalid(std::string(op) + ": W has the wrong shape for hidden_size " + std::to_string(in.hidden));
  if (r.Dims()[0] != in.dirs || r.Dims()[1] != gh || r.Dims()[2] != in.hidden)
    Invalid(std::string(op) + ": R has the wrong shape for hidden_size " + std::to_string(in.hidden));
  in.x = ToC<T, C>(x);
  if (in.layout != 0) in.x = Swap01(in.x, in.batch, in.seq, in.input);
  in.w = ToC<T, C>(w);
  in.r = ToC<T, C>(r);
  if (sdk::TensorView b = seq::OptionalInput(ctx, 3)) {
    if (b.ElementCount() != in.dirs * 2 * gh) Invalid(std::string(op) + ": B has the wrong shape");
    in.b = ToC<T, C>(b);
  } else {
    in.b.assign(in.dirs * 2 * gh, C(0));
  }
  in.lens.assign(in.batch, in.seq);
  if (sdk::TensorView l = seq::OptionalInput(ctx, 4)) {
    in.lens = seq::ReadInts(l);
    if (static_cast<int64_t>(in.lens.size()) != in.batch) Invalid(std::string(op) + ": sequence_lens needs batch elements");
    for (int64_t v : in.lens)
      if (v < 0 || v > in.seq) Invalid(std::string(op) + ": sequence_lens value out of range");
  }
  auto state = [&](size_t i, std::vector<C>& dst) {
    const int64_t n = in.dirs * in.batch * in.hidden;
    if (sdk::TensorView t = seq::OptionalInput(ctx, i)) {
      if (t.ElementCount() != n) Invalid(std::string(op) + ": initial state has the wrong shape");
      dst = ToC<T, C>(t);
      if (in.layout != 0) dst = Swap01(dst, in.batch, in.dirs, in.hidden);
    } else {
      dst.assign(n, C(0));
    }
  };
  state(5, in.init_h);
  state(6, in.init_c);
  return in;
}

// Y [seq, dirs, batch, hidden] (time-major) and the final states [dirs, batch, hidden], written in `layout`.
template <typename T, typename C>
void WriteOutputs(sdk::KernelContext& ctx, const RecurrentInputs<C>& in, const std::vector<C>& y,
                  const std::vector<C>& yh, const std::vector<C>* yc) {
  const int64_t S = in.seq, D = in.dirs, B = in.batch, H = in.hidden;
  auto conv = [](C v) { return static_cast<T>(v); };
  if (seq::HasOutput(ctx, 0)) {
    Dims dims = in.layout == 0 ? Dims{S, D, B, H} : Dims{B, S, D, H};
    auto out = seq::AllocOut<T>(ctx, 0, dims);
    for (int64_t s = 0; s < S; ++s)
      for (int64_t d = 0; d < D; ++d)
        for (int64_t b = 0; b < B; ++b) {
          const C* src = &y[((s * D + d) * B + b) * H];
          T* dst = in.layout == 0 ? &out[((s * D + d) * B + b) * H] : &out[((b * S + s) * D + d) * H];
          std::transform(src, src + H, dst, conv);
        }
  }
  auto state = [&](size_t i, const std::vector<C>& v) {
    if (!seq::HasOutput(ctx, i)) return;
    Dims dims = in.layout == 0 ? Dims{D, B, H} : Dims{B, D, H};
    auto out = seq::AllocOut<T>(ctx, i, dims);
    for (int64_t d = 0; d < D; ++d)
      for (int64_t b = 0; b < B; ++b) {
        const C* src = &v[(d * B + b) * H];
        T* dst = in.layout == 0 ? &out[(d * B + b) * H] : &out[(b * D + d) * H];
        std::transform(src, src + H, dst, conv);
      }
  };
  state(1, yh);
  if (yc) state(2, *yc);
}

// X (all steps) times W[d]^T plus Wb[d]: [seq * batch, gates * hidden].
template <typename C>
MatR<C> InputProjection(const RecurrentInputs<C>& in, int64_t d) {
  const int64_t gh = in.gates * in.hidden;
  CMapR<C> x(in.x.data(), in.seq * in.batch, in.input);
  CMapR<C> w(in.w.data() + d * gh * in.input, gh, in.input);
  MatR<C> xw = x * w.transpose();
  Eigen::Map<const Eigen::Matrix<C, 1, Eigen::Dynamic>> wb(in.b.data() + d * 2 * gh, gh);
  xw.rowwise() += wb;
  return xw;
}

// The time index batch element b reads at step s of direction d (-1 past its sequence length).
template <typename C>
int64_t TimeIndex(const RecurrentInputs<C>& in, int64_t d, int64_t s, int64_t b) {
  const int64_t len = in.lens[b];
  if (s >= len) return -1;
  const bool reverse = in.reverse_only || d == 1;
  return reverse ? len - 1 - s : s;
}

// Dispatches a recurrent kernel body over the element types RNN/LSTM/GRU accept.
template <typename Fn>
void DispatchRecurrent(sdk::KernelContext& ctx, Fn&& fn) {
  Dispatch<TypeList<float, double, half>>(ctx.RequiredInput(0).ElemType(), [&]<typename T>() {
    using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
    fn.template operator()<T, C>();
  });
}

}  // namespace kiln::kernels::rnn
