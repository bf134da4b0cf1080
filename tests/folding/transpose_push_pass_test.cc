// TransposePushPass: golden tests (ONNX text before and after) for each op family, a pair that meets and cancels,
// graphs it leaves alone, and a numeric check on the reference executor that every rewritten model computes what
// the input model did. The passes run as in O1's walk: TransposePushPass, TransposePairMergePass (which cancels
// the pairs that meet) and DeadCodeEliminationPass (which drops the constants the pass replaced).
#include <gtest/gtest.h>

#include "folding_test_util.h"
#include "fusion/fusion_test_util.h"

namespace kiln {
namespace {

using kiln::testing::Canonical;
using kiln::testing::CountOps;
using kiln::testing::Counter;
using kiln::testing::Execute;
using kiln::testing::ParseModel;
using kiln::testing::PrintGraph;
using kiln::testing::RunPasses;
using kiln::testing::SameOutputs;

constexpr const char* kPass = "TransposePushPass";

std::string M(const std::string& graph, int opset = 17) {
  return "<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + "]>\n" + graph;
}

// Runs the walk on `before`; expects `after`, `pushed` pushes, and the same outputs on the reference executor.
void ExpectPush(const std::string& before, const std::string& after, int64_t pushed, int64_t absorbed = 0) {
  auto m = ParseModel(before);
  ASSERT_TRUE(m);
  const auto expected = Execute(*m);
  auto run = RunPasses(*m, {kPass, "TransposePairMergePass", "DeadCodeEliminationPass"});
  EXPECT_TRUE(run.changed());
  EXPECT_EQ(Counter(run, kPass, "transposes_pushed"), pushed);
  EXPECT_EQ(Counter(run, kPass, "transposes_absorbed"), absorbed);
  EXPECT_EQ(PrintGraph(*m), Canonical(after));
  EXPECT_TRUE(SameOutputs(expected, Execute(*m)));
}

// Runs the pass alone on `text`; expects no change at all.
void ExpectNoChange(const std::string& text) {
  auto m = ParseModel(text);
  ASSERT_TRUE(m);
  auto run = RunPasses(*m, {kPass});
  EXPECT_FALSE(run.changed());
  EXPECT_EQ(Counter(run, kPass, "transposes_pushed"), 0);
  EXPECT_EQ(PrintGraph(*m), Canonical(text));
}

TEST(TransposePushPass, AnInversePairMeetsThroughAUnaryOpAndCancels) {
  // Transpose(p) -> Relu -> Transpose(p^-1): the first moves below Relu, meets the second, both go.
  ExpectPush(M(R"(g (float[2,3,4] x) => (float[2,3,4] y) {
    t = Transpose <perm = [1, 2, 0]> (x)
    r = Relu(t)
    u = Transpose <perm = [2, 0, 1]> (r)
    y = Add(u, x)
  })"),
             M(R"(g (float[2,3,4] x) => (float[2,3,4] y) {
    r = Relu(x)
    y = Add(r, x)
  })"),
             1);
}

TEST(TransposePushPass, MovesThroughAChainOfUnaryOps) {
  // Cast, LeakyRelu and Clip with scalar bounds: the Transpose moves three times, then cancels.
  ExpectPush(M(R"(g (float[2,3] x, float lo) => (double[2,3] y) <float hi = {1.5}> {
    t = Transpose <perm = [1, 0]> (x)
    a = LeakyRelu <alpha = 0.25> (t)
    b = Clip(a, lo, hi)
    c = Cast <to = 11> (b)
    d = Transpose <perm = [1, 0]> (c)
    y = Neg(d)
  })"),
             M(R"(g (float[2,3] x, float lo) => (double[2,3] y) <float hi = {1.5}> {
    a = LeakyRelu <alpha = 0.25> (x)
    b = Clip(a, lo, hi)
    c = Cast <to = 11> (b)
    y = Neg(c)
  })"),
             3);
}

TEST(TransposePushPass, TransposesAConstantOperandOfLowerRank) {
  // p = [1,2,0]: t [3,4,2]; c [4,2] broadcasts as [1,4,2]; c' = Transpose(c as [1,4,2], p^-1 = [2,0,1]) is [2,1,4]
  // with c'[k][0][j] = c[j][k] = {1, 3, 5, 7, 2, 4, 6, 8}.
  ExpectPush(M(R"(g (float[2,3,4] x) => (float[2,3,4] y) <float[4,2] c = {1, 2, 3, 4, 5, 6, 7, 8}> {
    t = Transpose <perm = [1, 2, 0]> (x)
    s = Sub(c, t)
    u = Transpose <perm = [2, 0, 1]> (s)
    y = Relu(u)
  })"),
             M(R"(g (float[2,3,4] x) => (float[2,3,4] y) <float[2,1,4] const = {1, 3, 5, 7, 2, 4, 6, 8}> {
    s = Sub(const, x)
    y = Relu(s)
  })"),
             1);
}

TEST(TransposePushPass, KeepsAOneElementOperandAndMergesTwoTransposes) {
  // Mul by a scalar input; Add of two Transposes with the same perm: two go, one comes.
  ExpectPush(M(R"(g (float[2,3,4] x, float[2,3,4] z, float[1,1] k) => (float[4,2,3] y) {
    t = Transpose <perm = [2, 0, 1]> (x)
    m = Mul(t, k)
    w = Transpose <perm = [2, 0, 1]> (z)
    a = Add(m, w)
    y = Sigmoid(a)
  })"),
             M(R"(g (float[2,3,4] x, float[2,3,4] z, float[1,1] k) => (float[4,2,3] y) {
    m = Mul(x, k)
    a = Add(m, z)
    Transpose_output_0__1 = Transpose <perm = [2, 0, 1]> (a)
    y = Sigmoid(Transpose_output_0__1)
  })"),
             2);
}

TEST(TransposePushPass, ReductionWithKeepdimsMapsTheAxes) {
  // Axis 1 of t is axis p[1] = 2 of x; the shape kept, the Transpose follows the reduction.
  ExpectPush(M(R"(g (float[2,3,4] x) => (float[2,3,1] y) {
    t = Transpose <perm = [0, 2, 1]> (x)
    r = ReduceMean <axes = [1], keepdims = 1> (t)
    y = Transpose <perm = [0, 2, 1]> (r)
  })"),
             M(R"(g (float[2,3,4] x) => (float[2,3,1] y) {
    r = ReduceMean <axes = [2], keepdims = 1> (x)
    y = Transpose <perm = [0, 1, 2]> (r)
  })"),
             1);
}

TEST(TransposePushPass, ReductionWithoutKeepdimsRenumbersThePermutation) {
  // x [2,3,4], p = [2,0,1]: t [4,2,3]; reducing t's axis 1 (x's 0) leaves x's dims 1, 2 -> [3,4], and t's kept
  // dims 0, 2 are x's 2, 1: q = [1, 0].
  ExpectPush(M(R"(g (float[2,3,4] x) => (float[3,4] y) {
    t = Transpose <perm = [2, 0, 1]> (x)
    r = ReduceMax <axes = [1], keepdims = 0> (t)
    y = Transpose <perm = [1, 0]> (r)
  })"),
             M(R"(g (float[2,3,4] x) => (float[3,4] y) {
    r = ReduceMax <axes = [0], keepdims = 0> (x)
    y = Transpose <perm = [0, 1]> (r)
  })"),
             1);
}

TEST(TransposePushPass, ReductionThatLeavesTheOrderAbsorbsTheTranspose) {
  // ReduceSum with constant axes [1, 2] of p = [0,2,1,3]: the kept dims 0, 3 stay in order, so no Transpose is
  // left; the axes input becomes a new constant [1, 2].
  ExpectPush(M(R"(g (float[2,3,4,5] x) => (float[2,5] y) <int64[2] ax = {2, 1}> {
    t = Transpose <perm = [0, 2, 1, 3]> (x)
    y = ReduceSum <keepdims = 0> (t, ax)
  })"),
             M(R"(g (float[2,3,4,5] x) => (float[2,5] y) <int64[2] const = {1, 2}> {
    y = ReduceSum <keepdims = 0> (x, const)
  })"),
             1, 1);
}

TEST(TransposePushPass, ConcatAndSplitMapTheirAxis) {
  // Concat on t's axis 2 is Concat on x's axis p[2] = 1; Split on t's axis 1 is Split on x's axis p[1] = 2, and
  // each output meets the inverse Transpose that reads it.
  ExpectPush(M(R"(g (float[2,3,4] x, float[2,5,4] z) => (float[2,8,4] y, float[2,3,2] a, float[2,3,2] b) {
    t = Transpose <perm = [0, 2, 1]> (x)
    w = Transpose <perm = [0, 2, 1]> (z)
    c = Concat <axis = 2> (t, w)
    y = Transpose <perm = [0, 2, 1]> (c)
    s = Transpose <perm = [0, 2, 1]> (x)
    s0, s1 = Split <axis = 1> (s)
    a = Transpose <perm = [0, 2, 1]> (s0)
    b = Transpose <perm = [0, 2, 1]> (s1)
  })"),
             M(R"(g (float[2,3,4] x, float[2,5,4] z) => (float[2,8,4] y, float[2,3,2] a, float[2,3,2] b) {
    c = Concat <axis = 1> (x, z)
    y = Transpose <perm = [0, 1, 2]> (c)
    s0, s1 = Split <axis = 2> (x)
    a = Transpose <perm = [0, 1, 2]> (s0)
    b = Transpose <perm = [0, 1, 2]> (s1)
  })"),
             2);
}

TEST(TransposePushPass, PadReordersItsPads) {
  // pads [b0, b1, b2, e0, e1, e2] of t are x's [b0, b2, b1, e0, e2, e1] for p = [0,2,1].
  ExpectPush(M(R"(g (float[1,2,3] x) => (float[1,3,6] y) <int64[6] pads = {0, 1, 0, 0, 2, 1}> {
    t = Transpose <perm = [0, 2, 1]> (x)
    p = Pad(t, pads)
    u = Transpose <perm = [0, 2, 1]> (p)
    y = Neg(u)
  })"),
             M(R"(g (float[1,2,3] x) => (float[1,3,6] y) <int64[6] const = {0, 0, 1, 0, 1, 2}> {
    p = Pad(x, const)
    y = Neg(p)
  })"),
             1);
}

TEST(TransposePushPass, SliceMapsItsAxesGivenOrNot) {
  // Axis 0 of t is axis 1 of x; without an axes input the axes are 0..k-1 and an axes input is added.
  ExpectPush(M(R"(g (float[3,4] x) => (float[3,2] y, float[3,2] z) <int64[1] st = {1}, int64[1] en = {3}, int64[1] ax = {0}> {
    t = Transpose <perm = [1, 0]> (x)
    s = Slice(t, st, en, ax)
    u = Transpose <perm = [1, 0]> (s)
    y = Neg(u)
    v = Transpose <perm = [1, 0]> (x)
    w = Slice(v, st, en)
    o = Transpose <perm = [1, 0]> (w)
    z = Neg(o)
  })"),
             M(R"(g (float[3,4] x) => (float[3,2] y, float[3,2] z) <int64[1] st = {1}, int64[1] en = {3}, int64[1] const = {1}, int64[1] const__1 = {1}> {
    s = Slice(x, st, en, const)
    y = Neg(s)
    w = Slice(x, st, en, const__1)
    z = Neg(w)
  })"),
             2);
}

TEST(TransposePushPass, ChangesNothingWhenTheTransposeHasTwoReaders) {
  ExpectNoChange(M(R"(g (float[2,3] x) => (float[3,2] y, float[3,2] z) {
    t = Transpose <perm = [1, 0]> (x)
    r = Relu(t)
    y = Neg(r)
    z = Abs(t)
  })"));
}

TEST(TransposePushPass, ChangesNothingWithANonConstantOperand) {
  // z is neither constant, nor of one element, nor a Transpose with the same perm.
  ExpectNoChange(M(R"(g (float[2,3] x, float[3,2] z, float[2,3] v) => (float[3,2] y, float[3,2] w) {
    t = Transpose <perm = [1, 0]> (x)
    a = Add(t, z)
    y = Neg(a)
    u = Transpose(v)
    b = Mul(u, z)
    w = Neg(b)
  })"));
}

TEST(TransposePushPass, ChangesNothingForOtherOpsOrUnknownAxes) {
  // Softmax is not in the list; a reduction's axes that are not constant; a Split whose outputs are graph
  // outputs; an op whose output is a graph output (moving a Transpose there removes nothing).
  ExpectNoChange(M(R"(g (float[2,3] x, int64[1] ax) => (float[3,2] y, float[1,2] r, float[3,1] s0, float[3,1] s1, float[3,2] o) {
    t = Transpose <perm = [1, 0]> (x)
    y = Softmax <axis = 1> (t)
    u = Transpose <perm = [1, 0]> (x)
    r = ReduceSum <keepdims = 1> (u, ax)
    v = Transpose <perm = [1, 0]> (x)
    s0, s1 = Split <axis = 1> (v)
    w = Transpose <perm = [1, 0]> (x)
    o = Relu(w)
  })"));
}

TEST(TransposePushPass, O2CancelsThePairsAroundElementwiseOps) {
  // The pipeline's own walk: the Transpose moves through Add (a constant of lower rank), Erf, ReduceMean and Mul
  // (a scalar), meets its inverse and both go.
  auto m = ParseModel(M(R"(g (float[1,4,8,2] x) => (float[1,4,8,1] y) <float[2] b = {1, -1}, float k = {2}> {
    t = Transpose <perm = [0, 2, 1, 3]> (x)
    a = Add(t, b)
    e = Erf(a)
    s = ReduceMean <axes = [3], keepdims = 1> (e)
    d = Mul(s, k)
    r = Transpose <perm = [0, 2, 1, 3]> (d)
    y = Neg(r)
  })"));
  ASSERT_TRUE(m);
  const auto expected = Execute(*m);
  ASSERT_EQ(CountOps(*m, "Transpose"), 2u);
  auto run = kiln::testing::RunLevel(*m, "O2");
  EXPECT_GE(Counter(run, kPass, "transposes_pushed"), 1);
  EXPECT_EQ(CountOps(*m, "Transpose"), 0u) << PrintGraph(*m);
  EXPECT_TRUE(SameOutputs(expected, Execute(*m)));
}

}  // namespace
}  // namespace kiln
