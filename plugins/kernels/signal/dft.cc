// DFT and STFT (opset 17). DFT: along any signal axis, real ([..., 1]) or complex ([..., 2]) input, forward or
// inverse (scaled by 1/n), onesided, dft_length zero-padding or truncation. STFT: framed DFT with frame_step,
// an optional window and frame_length, onesided. Transforms go through Eigen's FFT (kissfft, any length) in
// double precision.
#include "core/elem_types.h"
#include <kiln/kiln_plugin_parts.hpp>
#include "core/seq_util.h"
#include "core/shape_util.h"

#include <unsupported/Eigen/FFT>

#include <complex>
#include <vector>

namespace kiln::kernels {
namespace {

using seq::Invalid;
using cd = std::complex<double>;

// in: n complex values; out: the transform of length `len` (input zero-padded or truncated to len).
class Transformer {
 public:
  Transformer(int64_t len, bool inverse) : len_(len), inverse_(inverse), buf_(len), res_(len) {}
  const std::vector<cd>& Run(const std::vector<cd>& in) {
    for (int64_t i = 0; i < len_; ++i) buf_[i] = i < static_cast<int64_t>(in.size()) ? in[i] : cd(0, 0);
    if (inverse_) fft_.inv(res_, buf_);
    else fft_.fwd(res_, buf_);
    return res_;
  }

 private:
  int64_t len_;
  bool inverse_;
  Eigen::FFT<double> fft_;
  std::vector<cd> buf_, res_;
};

void Dft(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  const int64_t rank = static_cast<int64_t>(x.Rank());
  if (rank < 3) Invalid("DFT: the input needs rank >= 3 ([batch, signal..., 1 or 2])");
  const Dims dims(x.Dims().begin(), x.Dims().end());
  const int64_t comps = dims.back();
  if (comps != 1 && comps != 2) Invalid("DFT: the last dimension must be 1 (real) or 2 (complex)");
  int64_t axis = ctx.GetInt("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 1 || axis > rank - 2) Invalid("DFT: axis must name a signal dimension");
  const bool inverse = ctx.GetInt("inverse", 0) != 0;
  const bool onesided = ctx.GetInt("onesided", 0) != 0;
  if (inverse && onesided) throw sdk::Unsupported("DFT: inverse with onesided");
  const int64_t n = dims[axis];
  int64_t len = n;
  if (sdk::TensorView l = seq::OptionalInput(ctx, 1)) len = seq::ReadScalar<int64_t>(l, "dft_length");
  if (len <= 0) Invalid("DFT: dft_length must be positive");
  const int64_t out_len = onesided ? len / 2 + 1 : len;
  Dims out_dims = dims;
  out_dims[axis] = out_len;
  out_dims.back() = 2;
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= dims[i];
  for (int64_t i = axis + 1; i < rank - 1; ++i) inner *= dims[i];
  Dispatch<kFloatTypes>(x.ElemType(), [&]<typename T>() {
    auto in = seq::Data<T>(x);
    auto out = seq::AllocOut<T>(ctx, 0, out_dims);
    Transformer tr(len, inverse);
    std::vector<cd> line(n);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < inner; ++j) {
        for (int64_t k = 0; k < n; ++k) {
          const T* p = &in[((o * n + k) * inner + j) * comps];
          line[k] = cd(static_cast<Compute<T>>(p[0]), comps == 2 ? static_cast<double>(static_cast<Compute<T>>(p[1])) : 0.0);
        }
        const std::vector<cd>& res = tr.Run(line);
        for (int64_t k = 0; k < out_len; ++k) {
          T* q = &out[((o * out_len + k) * inner + j) * 2];
          q[0] = static_cast<T>(static_cast<Compute<T>>(res[k].real()));
          q[1] = static_cast<T>(static_cast<Compute<T>>(res[k].imag()));
        }
      }
  });
}

void Stft(sdk::KernelContext& ctx) {
  sdk::TensorView sig = ctx.RequiredInput(0);
  if (sig.Rank() != 3) Invalid("STFT: signal must have shape [batch, signal_length, 1 or 2]");
  const int64_t batch = sig.Dims()[0], sig_len = sig.Dims()[1], comps = sig.Dims()[2];
  if (comps != 1 && comps != 2) Invalid("STFT: the last dimension must be 1 (real) or 2 (complex)");
  const int64_t step = seq::ReadScalar<int64_t>(ctx.RequiredInput(1), "frame_step");
  if (step <= 0) Invalid("STFT: frame_step must be positive");
  sdk::TensorView window = seq::OptionalInput(ctx, 2);
  sdk::TensorView flen_t = seq::OptionalInput(ctx, 3);
  int64_t flen = -1;
  if (flen_t) flen = seq::ReadScalar<int64_t>(flen_t, "frame_length");
  std::vector<double> win;
  if (window) {
    if (window.Rank() != 1) Invalid("STFT: window must be 1-D");
    win = seq::ReadAs<double>(window);
    if (flen >= 0 && flen != static_cast<int64_t>(win.size())) Invalid("STFT: frame_length differs from the window length");
    flen = static_cast<int64_t>(win.size());
  }
  if (flen <= 0) Invalid("STFT: frame_length or a window must be given");
  if (flen > sig_len) Invalid("STFT: frame_length exceeds the signal length");
  const bool onesided = ctx.GetInt("onesided", 1) != 0;
  const int64_t frames = (sig_len - flen) / step + 1;
  const int64_t bins = onesided ? flen / 2 + 1 : flen;
  Dims out_dims{batch, frames, bins, 2};
  Dispatch<kFloatTypes>(sig.ElemType(), [&]<typename T>() {
    auto in = seq::Data<T>(sig);
    auto out = seq::AllocOut<T>(ctx, 0, out_dims);
    Transformer tr(flen, false);
    std::vector<cd> line(flen);
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t f = 0; f < frames; ++f) {
        for (int64_t k = 0; k < flen; ++k) {
          const T* p = &in[(b * sig_len + f * step + k) * comps];
          const double w = win.empty() ? 1.0 : win[k];
          line[k] = cd(static_cast<double>(static_cast<Compute<T>>(p[0])) * w,
                       comps == 2 ? static_cast<double>(static_cast<Compute<T>>(p[1])) * w : 0.0);
        }
        const std::vector<cd>& res = tr.Run(line);
        for (int64_t k = 0; k < bins; ++k) {
          T* q = &out[((b * frames + f) * bins + k) * 2];
          q[0] = static_cast<T>(static_cast<Compute<T>>(res[k].real()));
          q[1] = static_cast<T>(static_cast<Compute<T>>(res[k].imag()));
        }
      }
  });
}

}  // namespace
}  // namespace kiln::kernels

KILN_PLUGIN_PART(SignalDft) {
  reg.AddKernelFn({.op_type = "DFT", .since_version = 17, .until_version = 19}, kiln::kernels::Dft);
  reg.AddKernelFn({.op_type = "STFT", .since_version = 17}, kiln::kernels::Stft);
}
