// The arithmetic of ONNX's quantized operators, in one place so every kernel rounds and saturates alike, and in
// the order ONNX Runtime's CPU kernels compute it, so results agree bit for bit:
//   quantize      y = saturate(round_half_even(x / scale) + zero_point)            (QuantizeLinear, MLAS)
//   dequantize    y = float(int32(x) - zero_point) * scale                         (DequantizeLinear)
//   requantize    y = saturate(round_half_even(float(acc) * multiplier) + y_zp), multiplier computed once as
//                 (a_scale * b_scale) / y_scale in float, acc the exact int32 sum (QLinearConv, QLinearMatMul)
//   dynamic       min and max over x widened to include 0, scale = (max - min) / 255, zero point =
//                 saturate(round_half_even(0 - min / scale)); a zero range gives scale 1 and zero point 0 (the
//                 spec's formula divides by zero there; ONNX Runtime answers 1, and so does Kiln)
// Rounding is written out rather than left to std::nearbyint, whose result follows the thread's rounding mode.
// Saturation clamps in float before the cast (a cast of an out-of-range float is undefined); NaN becomes 0 before
// the zero point is added, as ONNX leaves it unspecified. Nothing here includes the SDK, so the unit tests
// (tests/quant/quant_math_test.cc) compile it alone.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>

namespace kiln::kernels::quant {

// Round to the nearest integer, ties to the even one, independent of the floating-point environment.
inline float RoundHalfEven(float v) {
  if (!std::isfinite(v)) return v;
  const float t = std::trunc(v);
  const float frac = v - t;  // exact: |frac| < 1 and v, t share an exponent range
  if (std::fabs(frac) != 0.5f) return std::round(v);
  return std::fmod(t, 2.0f) == 0.0f ? t : t + (v > 0 ? 1.0f : -1.0f);
}

// v (already integral, or not: it is clamped, then truncated) saturated to Q's range; NaN gives 0.
template <typename Q>
Q Saturate(float v) {
  if (std::isnan(v)) return Q(0);
  constexpr float lo = static_cast<float>(std::numeric_limits<Q>::min());
  constexpr float hi = static_cast<float>(std::numeric_limits<Q>::max());
  return static_cast<Q>(std::clamp(v, lo, hi));
}

// QuantizeLinear of one value.
template <typename Q>
Q Quantize(float x, float scale, int32_t zero_point) {
  const float r = RoundHalfEven(x / scale);
  return std::isnan(r) ? Saturate<Q>(static_cast<float>(zero_point))
                       : Saturate<Q>(r + static_cast<float>(zero_point));
}

// DequantizeLinear of one value (Compute: float, or double for a double scale).
template <typename Compute>
Compute Dequantize(int32_t x, int32_t zero_point, Compute scale) {
  return static_cast<Compute>(x - zero_point) * scale;
}

// The multiplier of a requantization, in ORT's order: the product of the input scales first.
inline float RequantMultiplier(float a_scale, float b_scale, float y_scale) { return a_scale * b_scale / y_scale; }

// An int32 accumulator requantized to Q.
template <typename Q>
Q Requantize(int32_t acc, float multiplier, int32_t y_zero_point) {
  const float r = RoundHalfEven(static_cast<float>(acc) * multiplier);
  return std::isnan(r) ? Saturate<Q>(static_cast<float>(y_zero_point))
                       : Saturate<Q>(r + static_cast<float>(y_zero_point));
}

struct DynamicParams {
  float scale = 1.0f;
  uint8_t zero_point = 0;
};

// DynamicQuantizeLinear's scale and zero point for x (uint8: qmin 0, qmax 255).
inline DynamicParams DynamicQuantParams(std::span<const float> x) {
  float lo = 0.0f, hi = 0.0f;  // the range always includes 0
  for (float v : x) lo = std::min(lo, v), hi = std::max(hi, v);
  DynamicParams p;
  if (hi == lo) return p;  // all zeros: scale 1, zero point 0
  p.scale = (hi - lo) / 255.0f;
  p.zero_point = Saturate<uint8_t>(RoundHalfEven(0.0f - lo / p.scale));
  return p;
}

}  // namespace kiln::kernels::quant
