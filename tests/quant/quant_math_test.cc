// The arithmetic every quantized kernel shares (plugins/kernels/quant/quant_math.h) and the per-axis indexing
// (quant_params.h): ties round to even, also when the thread's rounding mode is not the default; values
// saturate at both ends of int8 and uint8; requantization multiplies by (a * b) / y in that order; the dynamic
// range includes 0 and its zero point rounds half to even.
#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <limits>
#include <vector>

#include "quant/quant_math.h"
#include "quant/quant_params.h"

namespace kiln::kernels::quant {
namespace {

TEST(RoundHalfEven, TiesGoToTheEvenNeighbour) {
  EXPECT_EQ(RoundHalfEven(0.5f), 0.0f);
  EXPECT_EQ(RoundHalfEven(1.5f), 2.0f);
  EXPECT_EQ(RoundHalfEven(2.5f), 2.0f);
  EXPECT_EQ(RoundHalfEven(3.5f), 4.0f);
  EXPECT_EQ(RoundHalfEven(-0.5f), 0.0f);
  EXPECT_EQ(RoundHalfEven(-1.5f), -2.0f);
  EXPECT_EQ(RoundHalfEven(-2.5f), -2.0f);
  EXPECT_EQ(RoundHalfEven(-3.5f), -4.0f);
  EXPECT_EQ(RoundHalfEven(254.5f), 254.0f);
  EXPECT_EQ(RoundHalfEven(255.5f), 256.0f);
}

TEST(RoundHalfEven, NonTiesGoToTheNearest) {
  EXPECT_EQ(RoundHalfEven(std::nextafter(2.5f, 0.0f)), 2.0f);
  EXPECT_EQ(RoundHalfEven(std::nextafter(2.5f, 3.0f)), 3.0f);
  EXPECT_EQ(RoundHalfEven(-0.49f), 0.0f);
  EXPECT_EQ(RoundHalfEven(-0.51f), -1.0f);
  EXPECT_EQ(RoundHalfEven(8388609.0f), 8388609.0f);  // above 2^23 every float is an integer
  EXPECT_TRUE(std::isnan(RoundHalfEven(std::numeric_limits<float>::quiet_NaN())));
}

TEST(RoundHalfEven, IgnoresTheThreadsRoundingMode) {
  const int saved = std::fegetround();
  for (int mode : {FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO}) {
    ASSERT_EQ(std::fesetround(mode), 0);
    EXPECT_EQ(RoundHalfEven(2.5f), 2.0f) << mode;
    EXPECT_EQ(RoundHalfEven(-3.5f), -4.0f) << mode;
    EXPECT_EQ(RoundHalfEven(1.25f), 1.0f) << mode;
    EXPECT_EQ(RoundHalfEven(-1.75f), -2.0f) << mode;
  }
  std::fesetround(saved);
}

TEST(Saturate, ClampsToTheTypesRange) {
  EXPECT_EQ(Saturate<uint8_t>(300.0f), 255);
  EXPECT_EQ(Saturate<uint8_t>(-1.0f), 0);
  EXPECT_EQ(Saturate<uint8_t>(255.0f), 255);
  EXPECT_EQ(Saturate<int8_t>(127.0f), 127);
  EXPECT_EQ(Saturate<int8_t>(128.0f), 127);
  EXPECT_EQ(Saturate<int8_t>(-129.0f), -128);
  EXPECT_EQ(Saturate<int8_t>(-1e30f), -128);
  EXPECT_EQ(Saturate<uint8_t>(std::numeric_limits<float>::infinity()), 255);
  EXPECT_EQ(Saturate<int8_t>(std::numeric_limits<float>::quiet_NaN()), 0);
}

TEST(Quantize, RoundsHalfToEvenThenAddsTheZeroPointThenSaturates) {
  EXPECT_EQ(Quantize<uint8_t>(0.25f, 0.5f, 0), 0);     // 0.5 -> 0
  EXPECT_EQ(Quantize<uint8_t>(0.75f, 0.5f, 0), 2);     // 1.5 -> 2
  EXPECT_EQ(Quantize<uint8_t>(1.25f, 0.5f, 10), 12);  // 2.5 -> 2, + 10
  EXPECT_EQ(Quantize<int8_t>(-0.75f, 0.5f, 10), 8);    // -1.5 -> -2, + 10
  EXPECT_EQ(Quantize<int8_t>(-0.25f, 0.5f, -3), -3);   // -0.5 -> -0
  EXPECT_EQ(Quantize<uint8_t>(100.0f, 0.25f, 128), 255);
  EXPECT_EQ(Quantize<uint8_t>(-100.0f, 0.25f, 128), 0);
  EXPECT_EQ(Quantize<int8_t>(63.75f, 0.5f, 0), 127);  // 127.5 -> 128, saturated
  EXPECT_EQ(Quantize<int8_t>(-64.25f, 0.5f, 0), -128);
  // The zero point is added after rounding: round(x / s) + zp, not round(x / s + zp) (equal for integral zp,
  // but not in float when x / s is large: 2^24 + 1 is not a float).
  EXPECT_EQ(Quantize<uint8_t>(1.5f, 1.0f, 7), 9);
}

TEST(Dequantize, SubtractsInIntegersThenScales) {
  EXPECT_EQ(Dequantize<float>(255, 128, 0.5f), 63.5f);
  EXPECT_EQ(Dequantize<float>(-128, 127, 0.25f), -63.75f);
  EXPECT_EQ(Dequantize<double>(3, 3, 0.1), 0.0);
}

TEST(Requantize, RoundsTheScaledSumHalfToEven) {
  EXPECT_EQ(Requantize<uint8_t>(5, 0.5f, 0), 2);    // 2.5 -> 2
  EXPECT_EQ(Requantize<uint8_t>(7, 0.5f, 0), 4);    // 3.5 -> 4
  EXPECT_EQ(Requantize<uint8_t>(-3, 0.5f, 100), 98);  // -1.5 -> -2
  EXPECT_EQ(Requantize<int8_t>(1000, 0.5f, 0), 127);
  EXPECT_EQ(Requantize<int8_t>(-1000, 0.5f, 0), -128);
  EXPECT_EQ(Requantize<uint8_t>(-1000, 0.5f, 100), 0);
}

TEST(RequantMultiplier, MultipliesTheInputScalesFirst) {
  // Find scales where (a * b) / y and a * (b / y) differ in float, then check which one is used.
  bool found = false;
  for (int i = 1; i < 200 && !found; ++i)
    for (int j = 1; j < 50 && !found; ++j) {
      const float a = 0.0137f * static_cast<float>(i), b = 0.0071f * static_cast<float>(j), y = 0.093f;
      const volatile float ab = a * b;
      const volatile float by = b / y;
      const float left = ab / y, right = a * by;
      if (left == right) continue;
      found = true;
      EXPECT_EQ(RequantMultiplier(a, b, y), left);
      EXPECT_NE(RequantMultiplier(a, b, y), right);
    }
  EXPECT_TRUE(found);
}

TEST(DynamicQuantParams, ScaleIsTheRangeWithZeroOver255) {
  std::vector<float> x = {-1.0f, 0.5f, 2.984375f};  // range 3.984375 = 255 / 64
  DynamicParams p = DynamicQuantParams(x);
  EXPECT_EQ(p.scale, 1.0f / 64);
  EXPECT_EQ(p.zero_point, 64);
  std::vector<float> pos = {0.5f, 2.0f};  // min is 0, not 0.5
  p = DynamicQuantParams(pos);
  EXPECT_EQ(p.scale, 2.0f / 255.0f);
  EXPECT_EQ(p.zero_point, 0);
  std::vector<float> neg = {-3.0f, -1.0f};  // max is 0
  p = DynamicQuantParams(neg);
  EXPECT_EQ(p.scale, 3.0f / 255.0f);
  EXPECT_EQ(p.zero_point, 255);
}

TEST(DynamicQuantParams, ZeroPointRoundsHalfToEven) {
  // scale 1/16: -min / scale = 40.5 rounds to 40, 41.5 to 42 (half away from zero would give 41 and 42).
  std::vector<float> a = {-2.53125f, 13.40625f};
  DynamicParams p = DynamicQuantParams(a);
  ASSERT_EQ(p.scale, 1.0f / 16);
  EXPECT_EQ(p.zero_point, 40);
  std::vector<float> b = {-2.59375f, 13.34375f};
  p = DynamicQuantParams(b);
  ASSERT_EQ(p.scale, 1.0f / 16);
  EXPECT_EQ(p.zero_point, 42);
}

TEST(DynamicQuantParams, AllZerosGiveScaleOne) {
  std::vector<float> z = {0.0f, 0.0f, -0.0f};
  DynamicParams p = DynamicQuantParams(z);
  EXPECT_EQ(p.scale, 1.0f);
  EXPECT_EQ(p.zero_point, 0);
  EXPECT_EQ(Quantize<uint8_t>(0.0f, p.scale, p.zero_point), 0);
}

TEST(AxisParam, IndexesAlongTheAxis) {
  const std::vector<int64_t> dims = {2, 3, 4};
  AxisParam a = AlongAxis("Op", "scale", dims, 1, 3);
  EXPECT_EQ(a.count, 3);
  EXPECT_EQ(a.inner, 4);
  std::vector<int64_t> got;
  for (int64_t i = 0; i < 24; i += 4) got.push_back(a.Index(i));
  EXPECT_EQ(got, (std::vector<int64_t>{0, 1, 2, 0, 1, 2}));
  AxisParam last = AlongAxis("Op", "scale", dims, 2, 4);
  EXPECT_EQ(last.Index(5), 1);
  EXPECT_EQ(last.Index(23), 3);
  AxisParam one = AlongAxis("Op", "scale", dims, 1, 1);
  EXPECT_EQ(one.Index(23), 0);
}

TEST(AxisParam, AWrongCountNamesTheParameterAndAxis) {
  const std::vector<int64_t> dims = {2, 3, 4};
  try {
    AlongAxis("QuantizeLinear", "the scale", dims, 1, 4);
    FAIL() << "no error";
  } catch (const sdk::Error& e) {
    EXPECT_STREQ(e.what(), "QuantizeLinear: the scale has 4 values; the tensor [2,3,4] has 3 along axis 1");
  }
}

TEST(MatrixParam, PerRowOrColumnPerMatrix) {
  MatrixParam tensor;
  EXPECT_EQ(tensor.Index(5, 3), 0);
  MatrixParam rows{.per = 4, .batched = false};
  EXPECT_EQ(rows.Index(5, 3), 3);
  MatrixParam batched{.per = 4, .batched = true};
  EXPECT_EQ(batched.Index(2, 3), 11);
}

}  // namespace
}  // namespace kiln::kernels::quant
