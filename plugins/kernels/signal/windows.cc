// Window generators and the mel filter bank (opset 17): HannWindow, HammingWindow, BlackmanWindow (periodic or
// symmetric, output_datatype) and MelWeightMatrix, following ONNX's reference construction.
#include "core/elem_types.h"
#include <kiln/kiln_plugin_parts.hpp>
#include "core/seq_util.h"

#include <cmath>
#include <numbers>
#include <vector>

namespace kiln::kernels {
namespace {

using seq::Invalid;

// Writes `v` to output 0 with the element type named by output_datatype (default float).
void WriteTyped(sdk::KernelContext& ctx, const std::vector<double>& v, const Dims& dims) {
  const int32_t type = static_cast<int32_t>(ctx.GetInt("output_datatype", KILN_ELEM_FLOAT));
  Dispatch<kNumericTypes>(type, [&]<typename T>() {
    auto out = seq::AllocOut<T>(ctx, 0, dims);
    for (size_t i = 0; i < v.size(); ++i) {
      if constexpr (std::is_integral_v<T>) out[i] = static_cast<T>(std::nearbyint(v[i]));
      else out[i] = static_cast<T>(static_cast<Compute<T>>(v[i]));
    }
  });
}

// a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), N = size (periodic) or size - 1 (symmetric).
void CosineWindow(sdk::KernelContext& ctx, double a0, double a1, double a2) {
  const int64_t size = seq::ReadScalar<int64_t>(ctx.RequiredInput(0), "size");
  if (size < 0) Invalid("window size must not be negative");
  const bool periodic = ctx.GetInt("periodic", 1) != 0;
  const double n_div = periodic ? static_cast<double>(size) : static_cast<double>(size - 1);
  std::vector<double> v(size);
  for (int64_t n = 0; n < size; ++n) {
    const double x = n_div == 0 ? 0.0 : 2 * std::numbers::pi * static_cast<double>(n) / n_div;
    v[n] = a0 - a1 * std::cos(x) + a2 * std::cos(2 * x);
  }
  WriteTyped(ctx, v, {size});
}

void MelWeightMatrix(sdk::KernelContext& ctx) {
  const int64_t num_mel_bins = seq::ReadScalar<int64_t>(ctx.RequiredInput(0), "num_mel_bins");
  const int64_t dft_length = seq::ReadScalar<int64_t>(ctx.RequiredInput(1), "dft_length");
  const int64_t sample_rate = seq::ReadScalar<int64_t>(ctx.RequiredInput(2), "sample_rate");
  const float lower = seq::ReadScalar<float>(ctx.RequiredInput(3), "lower_edge_hertz");
  const float upper = seq::ReadScalar<float>(ctx.RequiredInput(4), "upper_edge_hertz");
  if (num_mel_bins <= 0 || dft_length <= 0 || sample_rate <= 0)
    Invalid("MelWeightMatrix: num_mel_bins, dft_length and sample_rate must be positive");
  if (lower < 0 || upper < lower) Invalid("MelWeightMatrix: need 0 <= lower_edge_hertz <= upper_edge_hertz");
  const int64_t spec_bins = dft_length / 2 + 1;
  const float low_mel = 2595.f * std::log10(1.f + lower / 700.f);
  const float high_mel = 2595.f * std::log10(1.f + upper / 700.f);
  const double step = static_cast<double>((high_mel - low_mel) / static_cast<float>(num_mel_bins + 2));
  std::vector<int64_t> bins(num_mel_bins + 2);
  for (int64_t i = 0; i < num_mel_bins + 2; ++i) {
    double f = static_cast<double>(i) * step + static_cast<double>(low_mel);
    f = 700.0 * (std::pow(10.0, f / 2595.0) - 1.0);
    bins[i] = static_cast<int64_t>(std::floor(static_cast<double>(dft_length + 1) * f / static_cast<double>(sample_rate)));
  }
  std::vector<double> out(spec_bins * num_mel_bins, 0.0);
  auto at = [&](int64_t j, int64_t i) -> double& {
    if (j < 0 || j >= spec_bins) Invalid("MelWeightMatrix: a mel edge falls outside the spectrogram bins");
    return out[j * num_mel_bins + i];
  };
  for (int64_t i = 0; i < num_mel_bins; ++i) {
    const int64_t lo = bins[i], center = bins[i + 1], hi = bins[i + 2];
    const int64_t low_to_center = center - lo;
    if (low_to_center == 0) {
      at(center, i) = 1;
    } else {
      for (int64_t j = lo; j <= center; ++j)
        at(j, i) = static_cast<double>(j - lo) / static_cast<double>(low_to_center);
    }
    const int64_t center_to_high = hi - center;
    if (center_to_high > 0)
      for (int64_t j = center; j < hi; ++j)
        at(j, i) = static_cast<double>(hi - j) / static_cast<double>(center_to_high);
  }
  WriteTyped(ctx, out, {spec_bins, num_mel_bins});
}

}  // namespace
}  // namespace kiln::kernels

KILN_PLUGIN_PART(SignalWindows) {
  using namespace kiln::kernels;
  reg.AddKernelFn({.op_type = "HannWindow", .since_version = 17},
                  [](kiln::sdk::KernelContext& ctx) { CosineWindow(ctx, 0.5, 0.5, 0.0); });
  reg.AddKernelFn({.op_type = "HammingWindow", .since_version = 17},
                  [](kiln::sdk::KernelContext& ctx) { CosineWindow(ctx, 25.0 / 46.0, 21.0 / 46.0, 0.0); });
  reg.AddKernelFn({.op_type = "BlackmanWindow", .since_version = 17},
                  [](kiln::sdk::KernelContext& ctx) { CosineWindow(ctx, 0.42, 0.5, 0.08); });
  reg.AddKernelFn({.op_type = "MelWeightMatrix", .since_version = 17}, MelWeightMatrix);
}
