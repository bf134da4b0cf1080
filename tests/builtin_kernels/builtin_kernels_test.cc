// The built-in Split kernel: parts given as an input split the axis, and parts that do not tile it (the fuzzer
// found sums past the axis, which read past the input) are a kiln::Error naming the op, not an over-read. The
// built-in integer arithmetic wraps around where it overflows (the fuzzer found an int64 Mul overflowing, which C++
// leaves undefined), as ONNX Runtime and numpy compute it.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <vector>

#include "exec/executor.h"
#include "ir/model.h"
#include "kernels/kernel_registry.h"
#include "support/error.h"
#include "support/golden.h"

namespace kiln::testing {
namespace {

constexpr const char* kSplitModel = R"(
<ir_version: 8, opset_import: ["" : 13]>
split_parts (float[6] x, int64[2] parts) => (float[?] a, float[?] b) {
  a, b = Split<axis = 0>(x, parts)
}
)";

template <typename T>
RtValue Vector(DataType type, std::vector<T> v) {
  OutputTensor o = AllocateTensor(type, {static_cast<int64_t>(v.size())});
  std::memcpy(o.data, v.data(), v.size() * sizeof(T));
  return RtValue::Of(o.tensor);
}

class BuiltinSplit : public ::testing::Test {
 protected:
  void SetUp() override {
    RegisterBuiltinKernels(kernels_);
    model_ = ParseModel(kSplitModel);
    ASSERT_TRUE(model_);
  }
  std::vector<RtValue> Run(std::vector<int64_t> parts) {
    return Executor(*model_, kernels_).Run({Vector<float>(DataType::kFloat, {1, 2, 3, 4, 5, 6}),
                                            Vector<int64_t>(DataType::kInt64, parts)});
  }
  KernelRegistry kernels_;
  std::unique_ptr<Model> model_;
};

TEST_F(BuiltinSplit, PartsSplitTheAxis) {
  auto out = Run({2, 4});
  ASSERT_EQ(out.size(), 2u);
  auto a = out[0].tensor->values<float>(), b = out[1].tensor->values<float>();
  EXPECT_EQ(std::vector<float>(a.begin(), a.end()), (std::vector<float>{1, 2}));
  EXPECT_EQ(std::vector<float>(b.begin(), b.end()), (std::vector<float>{3, 4, 5, 6}));
}

TEST_F(BuiltinSplit, PartsPastTheAxisAreAnError) {
  try {
    Run({5, 5});
    FAIL() << "expected a kiln::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Split"), std::string::npos) << e.what();
  }
}

TEST_F(BuiltinSplit, NegativePartsAreAnError) { EXPECT_THROW(Run({-2, 8}), Error); }

constexpr const char* kIntegerModel = R"(
<ir_version: 8, opset_import: ["" : 13]>
integers (int64[3] a, int64[3] b) => (int64[3] sum, int64[3] product, int64[3] quotient, int64[3] neg, int64[3] abs) {
  sum = Add(a, b)
  product = Mul(a, b)
  quotient = Div(a, b)
  neg = Neg(a)
  abs = Abs(a)
}
)";

TEST(BuiltinIntegers, OverflowWrapsAroundAsTwosComplement) {
  KernelRegistry kernels;
  RegisterBuiltinKernels(kernels);
  auto model = ParseModel(kIntegerModel);
  ASSERT_TRUE(model);
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
  const int64_t big = int64_t{1} << 62;
  auto out = Executor(*model, kernels).Run({Vector<int64_t>(DataType::kInt64, {kMax, big, kMin}),
                                            Vector<int64_t>(DataType::kInt64, {1, 4, -1})});
  ASSERT_EQ(out.size(), 5u);
  auto values = [&](size_t i) {
    auto v = out[i].tensor->values<int64_t>();
    return std::vector<int64_t>(v.begin(), v.end());
  };
  EXPECT_EQ(values(0), (std::vector<int64_t>{kMin, big + 4, kMax}));  // kMax + 1 and kMin - 1 wrap
  EXPECT_EQ(values(1), (std::vector<int64_t>{kMax, 0, kMin}));        // 2^62 * 4 = 2^64 wraps to 0
  EXPECT_EQ(values(2), (std::vector<int64_t>{kMax, big / 4, kMin}));  // kMin / -1 is kMin again
  EXPECT_EQ(values(3), (std::vector<int64_t>{-kMax, -big, kMin}));
  EXPECT_EQ(values(4), (std::vector<int64_t>{kMax, big, kMin}));
}

// A perm with an axis past the rank, negative or repeated (the fuzzer found one past the rank, which read outside
// the dims) is an error naming the op.
TEST(BuiltinTranspose, APermThatIsNoPermutationIsAnError) {
  KernelRegistry kernels;
  RegisterBuiltinKernels(kernels);
  for (const char* perm : {"[0, 2]", "[-1, 0]", "[1, 1]"}) {
    auto model = ParseModel(std::string(R"(<ir_version: 8, opset_import: ["" : 13]>
transpose (float[2,3] x) => (float[?,?] y) {
  y = Transpose<perm = )") + perm + R"(>(x)
}
)");
    ASSERT_TRUE(model) << perm;
    try {
      OutputTensor x = AllocateTensor(DataType::kFloat, {2, 3});
      std::memset(x.data, 0, 6 * sizeof(float));
      Executor(*model, kernels).Run({RtValue::Of(x.tensor)});
      FAIL() << perm << ": expected a kiln::Error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("Transpose: perm is not a permutation"), std::string::npos) << e.what();
    }
  }
}

// Inputs that differ outside the axis (the fuzzer found them, and the copy ran past the smaller one) are an error.
TEST(BuiltinConcat, InputsThatDifferOutsideTheAxisAreAnError) {
  KernelRegistry kernels;
  RegisterBuiltinKernels(kernels);
  auto model = ParseModel(R"(<ir_version: 8, opset_import: ["" : 13]>
concat (float[2,3] a, float[4,1] b) => (float[?,?] y) {
  y = Concat<axis = 1>(a, b)
}
)");
  ASSERT_TRUE(model);
  OutputTensor a = AllocateTensor(DataType::kFloat, {2, 3}), b = AllocateTensor(DataType::kFloat, {4, 1});
  std::memset(a.data, 0, 6 * sizeof(float));
  std::memset(b.data, 0, 4 * sizeof(float));
  try {
    Executor(*model, kernels).Run({RtValue::Of(a.tensor), RtValue::Of(b.tensor)});
    FAIL() << "expected a kiln::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Concat: inputs differ in dimension 0"), std::string::npos) << e.what();
  }
}

// Starts, ends, axes and steps of different lengths (the fuzzer found a Slice-1 without `ends`, read past its
// end) are an error; the same Slice with all of them computes.
TEST(BuiltinSlice, StartsEndsAxesAndStepsMustBeAsMany) {
  KernelRegistry kernels;
  RegisterBuiltinKernels(kernels);
  struct Case {
    const char* attrs;
    bool ok;
  };
  for (const Case& c : {Case{"starts = [0]", false}, Case{"starts = [0], ends = [1, 1]", false},
                        Case{"starts = [0], ends = [1], axes = [0, 1]", false},
                        Case{"starts = [0], ends = [1], axes = [1]", true}}) {
    auto model = ParseModel(std::string(R"(<ir_version: 8, opset_import: ["" : 9]>
slice (float[2,3] x) => (float[?,?] y) {
  y = Slice<)") + c.attrs + R"(>(x)
}
)");
    ASSERT_TRUE(model) << c.attrs;
    OutputTensor x = AllocateTensor(DataType::kFloat, {2, 3});
    std::memset(x.data, 0, 6 * sizeof(float));
    if (c.ok) {
      auto out = Executor(*model, kernels).Run({RtValue::Of(x.tensor)});
      ASSERT_EQ(out.size(), 1u);
      EXPECT_EQ(out[0].tensor->dims(), (std::vector<int64_t>{2, 1}));
      continue;
    }
    try {
      Executor(*model, kernels).Run({RtValue::Of(x.tensor)});
      FAIL() << c.attrs << ": expected a kiln::Error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("they must be as many"), std::string::npos) << e.what();
    }
  }
}

// X and Y of different element types (a float X and an int8 Y would have read four bytes of each one-byte Y).
TEST(BuiltinWhere, XAndYOfDifferentTypesAreAnError) {
  KernelRegistry kernels;
  RegisterBuiltinKernels(kernels);
  auto model = ParseModel(R"(<ir_version: 8, opset_import: ["" : 13]>
where (bool[4] c, float[4] x, int8[4] y) => (float[?] z) {
  z = Where(c, x, y)
}
)");
  ASSERT_TRUE(model);
  OutputTensor c = AllocateTensor(DataType::kBool, {4}), x = AllocateTensor(DataType::kFloat, {4}),
               y = AllocateTensor(DataType::kInt8, {4});
  std::memset(c.data, 0, 4);
  std::memset(x.data, 0, 16);
  std::memset(y.data, 0, 4);
  try {
    Executor(*model, kernels).Run({RtValue::Of(c.tensor), RtValue::Of(x.tensor), RtValue::Of(y.tensor)});
    FAIL() << "expected a kiln::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Where: X and Y have different element types"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kiln::testing
