// The cost model against rooflines computed by hand on the round-number test chip (test_chip.yaml):
//   cube 81.92 Top/s fp16, 40.96 fp32; vector 2.56 Top/s fp16, 1.28 fp32; 1 TB/s; launch 5 us; barrier 1 us;
//   UB 64 KiB; tiles: min 256 B, 32 B blocks, streamed tiles x2.
#include <gtest/gtest.h>

#include <cmath>

#include "ascend_test_util.h"

namespace kiln::ascend {
namespace {

using namespace testing;

constexpr double kCubeF16 = 81.92e12, kCubeF32 = 40.96e12, kVecF16 = 2.56e12, kVecF32 = 1.28e12;
constexpr double kBw = 1e12, kLaunch = 5e-6, kBarrier = 1e-6;

class CostModelTest : public ::testing::Test {
 protected:
  CostModel model{TestChip()};
};

OpNode Conv(int32_t type, bool bias = false) {
  std::vector<std::optional<TensorInfo>> in = {T("x", type, {1, 64, 56, 56}), Const(T("w", type, {64, 64, 3, 3}))};
  if (bias) in.push_back(Const(T("b", type, {64})));
  return Op("Conv", in, {T("y", type, {1, 64, 56, 56})}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
}

TEST_F(CostModelTest, ConvFp16IsComputeBound) {
  // MACs = N*M*Ho*Wo*(C/g)*kh*kw = 1*64*56*56*64*9 = 115605504; FLOPs = 2 * MACs.
  Cost c = model.EstimateNode(Conv(kF16));
  const double flops = 2.0 * 64 * 56 * 56 * 64 * 9;
  const double bytes = (64 * 56 * 56 * 2 + 64 * 64 * 9) * 2.0;  // x, y, w at 2 B
  EXPECT_EQ(c.engine, "cube");
  EXPECT_EQ(c.flops, 231211008u);
  EXPECT_EQ(c.offchip_bytes, static_cast<uint64_t>(bytes));
  EXPECT_REL(c.compute_seconds, flops / kCubeF16);  // 2.8224 us
  EXPECT_REL(c.memory_seconds, bytes / kBw);        // 0.8765 us
  EXPECT_REL(c.launch_seconds, kLaunch);
  EXPECT_REL(c.seconds, flops / kCubeF16 + kLaunch);
  EXPECT_EQ(c.launches, 1u);
  EXPECT_EQ(c.barriers, 0u);
  EXPECT_TRUE(c.feasible);
  // One fractal step on the cube: A 16x16 + B 16x16 fp16, C 16x16 x 4 B.
  EXPECT_EQ(c.onchip_bytes, 2u * 16 * 16 * 2 + 16 * 16 * 4);
}

TEST_F(CostModelTest, ConvFp32RunsAtHalfTheCubeRate) {
  Cost c = model.EstimateNode(Conv(kF32));
  const double flops = 2.0 * 64 * 56 * 56 * 64 * 9;
  const double bytes = (64 * 56 * 56 * 2 + 64 * 64 * 9) * 4.0;
  EXPECT_REL(c.compute_seconds, flops / kCubeF32);  // 5.6448 us
  EXPECT_REL(c.memory_seconds, bytes / kBw);
  EXPECT_REL(c.seconds, flops / kCubeF32 + kLaunch);
}

TEST_F(CostModelTest, ConvBiasAndOutputFromAttributes) {
  OpNode n = Conv(kF16, true);
  n.outputs[0]->dims.reset();  // unknown: the spatial size comes from pads, strides and the kernel
  n.attrs["strides"] = std::vector<int64_t>{2, 2};
  Cost c = model.EstimateNode(n);
  // Ho = floor((56 + 2 - 3) / 2) + 1 = 28; FLOPs = 2*1*64*28*28*64*9 + bias 64*28*28.
  EXPECT_EQ(c.flops, static_cast<uint64_t>(2.0 * 64 * 28 * 28 * 64 * 9 + 64 * 28 * 28));
}

TEST_F(CostModelTest, MatMulFp16AndFp32) {
  // [1,128,768] x [768,3072]: FLOPs = 2*128*3072*768.
  auto matmul = [](int32_t type) {
    return Op("MatMul", {T("a", type, {1, 128, 768}), Const(T("b", type, {768, 3072}))}, {T("y", type, {1, 128, 3072})});
  };
  const double flops = 2.0 * 128 * 3072 * 768;
  const double elems = 128 * 768 + 768 * 3072 + 128 * 3072;
  Cost h = model.EstimateNode(matmul(kF16));
  EXPECT_EQ(h.flops, 603979776u);
  EXPECT_REL(h.compute_seconds, flops / kCubeF16);  // 7.3728 us
  EXPECT_REL(h.memory_seconds, elems * 2 / kBw);    // 5.7016 us
  EXPECT_REL(h.seconds, flops / kCubeF16 + kLaunch);
  Cost f = model.EstimateNode(matmul(kF32));
  EXPECT_REL(f.compute_seconds, flops / kCubeF32);  // 14.7456 us
  EXPECT_REL(f.memory_seconds, elems * 4 / kBw);    // 11.4033 us
  EXPECT_REL(f.seconds, flops / kCubeF32 + kLaunch);
}

TEST_F(CostModelTest, MatVecIsMemoryBound) {
  // [1,4096] x [4096,4096] fp16: 2*4096*4096 FLOPs (0.41 us) against 32 MiB of weights (33.6 us).
  Cost c = model.EstimateNode(Op("MatMul", {T("a", kF16, {1, 4096}), Const(T("b", kF16, {4096, 4096}))},
                                 {T("y", kF16, {1, 4096})}));
  const double bytes = (4096 + 4096.0 * 4096 + 4096) * 2;
  EXPECT_REL(c.compute_seconds, 2.0 * 4096 * 4096 / kCubeF16);
  EXPECT_REL(c.memory_seconds, bytes / kBw);
  EXPECT_REL(c.seconds, bytes / kBw + kLaunch);
}

TEST_F(CostModelTest, MatMulBroadcastsBatchAndPromotesVectors) {
  Cost c = model.EstimateNode(Op("MatMul", {T("a", kF16, {8, 1, 64, 32}), T("b", kF16, {4, 32, 16})},
                                 {T("y", kF16, {8, 4, 64, 16})}));
  EXPECT_EQ(c.flops, 2u * 8 * 4 * 64 * 16 * 32);
  Cost v = model.EstimateNode(Op("MatMul", {T("a", kF16, {32}), T("b", kF16, {32, 16})}, {T("y", kF16, {16})}));
  EXPECT_EQ(v.flops, 2u * 16 * 32);
}

TEST_F(CostModelTest, GemmCountsAlphaBetaAndC) {
  OpNode g = Op("Gemm", {T("a", kF32, {64, 128}), T("b", kF32, {256, 128}), T("c", kF32, {256})},
                {T("y", kF32, {64, 256})}, {{"transB", int64_t{1}}, {"beta", 0.5}});
  // 2*M*N*K + M*N (add C) + M*N (beta * C); alpha is 1.
  EXPECT_EQ(model.EstimateNode(g).flops, 2u * 64 * 256 * 128 + 2u * 64 * 256);
}

TEST_F(CostModelTest, ElementwiseIsMemoryBound) {
  // Add of two [1,1024,1024] fp16: 1 op per element; 3 tensors of 2 MiB.
  Cost c = model.EstimateNode(
      Op("Add", {T("a", kF16, {1, 1024, 1024}), T("b", kF16, {1, 1024, 1024})}, {T("y", kF16, {1, 1024, 1024})}));
  EXPECT_EQ(c.engine, "vector");
  EXPECT_EQ(c.flops, 1048576u);
  EXPECT_REL(c.compute_seconds, 1048576 / kVecF16);   // 0.41 us
  EXPECT_REL(c.memory_seconds, 3 * 2097152.0 / kBw);  // 6.29 us
  EXPECT_REL(c.seconds, 3 * 2097152.0 / kBw + kLaunch);
  // Three tensors streamed through the UB: min tile 256 B each, double-buffered.
  EXPECT_EQ(c.onchip_bytes, 3u * 256 * 2);
}

TEST_F(CostModelTest, ElementwiseFactorScalesCompute) {
  // Sigmoid counts 4 vector ops per element (factors table).
  Cost c = model.EstimateNode(Op("Sigmoid", {T("x", kF32, {4096, 1024})}, {T("y", kF32, {4096, 1024})}));
  EXPECT_EQ(c.flops, 4u * 4096 * 1024);
  EXPECT_REL(c.compute_seconds, 4.0 * 4096 * 1024 / kVecF32);
}

TEST_F(CostModelTest, ReductionCountsInputElements) {
  // ReduceSum over axis 1 of [64,4096] fp32: 262144 adds; bytes = input + [64,1] output.
  OpNode r = Op("ReduceSum", {T("x", kF32, {64, 4096}), Ints("axes", {1})}, {T("y", kF32, {64, 1})});
  Cost c = model.EstimateNode(r);
  EXPECT_EQ(c.flops, 262144u);
  EXPECT_REL(c.compute_seconds, 262144 / kVecF32);
  EXPECT_EQ(c.offchip_bytes, 262144u * 4 + 64 * 4 + 8);  // x, y and the axes constant
  EXPECT_REL(c.seconds, (262144.0 * 4 + 256 + 8) / kBw + kLaunch);
  // Tile: a row of 4096 fp32 = 16 KiB for x, the 64-element output 256 B; both streamed (x2); axes not counted.
  EXPECT_EQ(c.onchip_bytes, 2u * 16384 + 2 * 256);
}

TEST_F(CostModelTest, GroupAcrossCubeAndVectorPaysOneBarrierAndOneLaunch) {
  // MatMul [128,768]x[768,768] -> Add bias -> Relu, fused.
  std::vector<OpNode> g = {
      Op("MatMul", {T("a", kF16, {128, 768}), Const(T("w", kF16, {768, 768}))}, {T("t", kF16, {128, 768})}),
      Op("Add", {T("t", kF16, {128, 768}), Const(T("bias", kF16, {768}))}, {T("u", kF16, {128, 768})}),
      Op("Relu", {T("u", kF16, {128, 768})}, {Outside(T("y", kF16, {128, 768}))}),
  };
  Cost c = model.EstimateGroup(g);
  const double compute = 2.0 * 128 * 768 * 768 / kCubeF16 + 2 * 98304 / kVecF16;  // 1.8432 + 0.0768 us
  const double bytes = (128 * 768 + 768 * 768 + 768 + 128 * 768) * 2.0;           // external only
  EXPECT_TRUE(c.feasible) << c.reason;
  EXPECT_EQ(c.engine, "cube");
  EXPECT_EQ(c.launches, 1u);
  EXPECT_EQ(c.barriers, 1u);
  EXPECT_REL(c.barrier_seconds, kBarrier);
  EXPECT_REL(c.compute_seconds, compute);
  EXPECT_EQ(c.offchip_bytes, static_cast<uint64_t>(bytes));
  EXPECT_REL(c.memory_seconds, bytes / kBw);
  EXPECT_REL(c.seconds, std::max(compute, bytes / kBw) + kLaunch + kBarrier);
  // Vector tiles: t (from the cube, streamed), bias (external), y (external) x2; u internal; + one cube step.
  EXPECT_EQ(c.onchip_bytes, 3u * 512 + 256 + (2 * 16 * 16 * 2 + 1024));
  EXPECT_NE(c.reason.find("runs cube[MatMul] -> vector[Add, Relu]"), std::string::npos) << c.reason;
  // Fused beats the three kernels apart: two launches saved for one barrier.
  double apart = 0;
  for (const OpNode& n : g) apart += model.EstimateNode(n).seconds;
  EXPECT_LT(c.seconds, apart);
}

TEST_F(CostModelTest, ViewsAreNeutralInAGroup) {
  // MatMul -> Reshape -> Add: one cube -> vector switch; the Reshape neither computes nor breaks the run.
  std::vector<OpNode> g = {
      Op("MatMul", {T("a", kF16, {64, 64}), T("b", kF16, {64, 64})}, {T("t", kF16, {64, 64})}),
      Op("Reshape", {T("t", kF16, {64, 64}), Ints("shape", {4096})}, {T("r", kF16, {4096})}),
      Op("Add", {T("r", kF16, {4096}), T("r", kF16, {4096})}, {Outside(T("y", kF16, {4096}))}),
  };
  Cost c = model.EstimateGroup(g);
  EXPECT_EQ(c.barriers, 1u);
  EXPECT_NE(c.reason.find("runs cube[MatMul] -> vector[Add]"), std::string::npos) << c.reason;
  // t and r are one tensor: the cube's result, streamed into the UB (512 B) + y (512 B) + the cube step.
  EXPECT_EQ(c.onchip_bytes, 2u * 512 + (2 * 16 * 16 * 2 + 1024));
}

TEST_F(CostModelTest, CubeVectorCubeGroupPaysTwoBarriers) {
  std::vector<OpNode> g = {
      Op("MatMul", {T("q", kF16, {128, 64}), T("k", kF16, {64, 128})}, {T("s", kF16, {128, 128})}),
      Op("Softmax", {T("s", kF16, {128, 128})}, {T("p", kF16, {128, 128})}),
      Op("MatMul", {T("p", kF16, {128, 128}), T("v", kF16, {128, 64})}, {Outside(T("o", kF16, {128, 64}))}),
  };
  Cost c = model.EstimateGroup(g);
  EXPECT_EQ(c.barriers, 2u);
  EXPECT_REL(c.barrier_seconds, 2 * kBarrier);
}

TEST_F(CostModelTest, GroupOverTheUnifiedBufferIsNotFeasible) {
  // Softmax(x) * x over rows of 16384 fp32: x (64 KiB, streamed x2) alone overflows the 64 KiB UB.
  auto group = [](int64_t row) {
    return std::vector<OpNode>{
        Op("Softmax", {T("x", kF32, {8, row})}, {T("s", kF32, {8, row})}),
        Op("Mul", {T("s", kF32, {8, row}), T("x", kF32, {8, row})}, {Outside(T("y", kF32, {8, row}))}),
    };
  };
  Cost over = model.EstimateGroup(group(16384));
  EXPECT_FALSE(over.feasible);
  EXPECT_EQ(over.onchip_bytes, 2u * 65536 + 65536 + 2 * 65536);  // x, y streamed; s internal
  EXPECT_NE(over.reason.find("exceeds the ub (65536 B usable)"), std::string::npos) << over.reason;
  EXPECT_NE(over.reason.find("longest row is 16384 elements"), std::string::npos) << over.reason;
  // Rows of 1024 fit: 8 KiB + 4 KiB + 8 KiB.
  Cost fits = model.EstimateGroup(group(1024));
  EXPECT_TRUE(fits.feasible) << fits.reason;
  EXPECT_EQ(fits.onchip_bytes, 2u * 4096 + 4096 + 2 * 4096);
  // The same softmax alone stays feasible (the kernel takes several passes) and says so.
  Cost alone = model.EstimateNode(group(16384)[0]);
  EXPECT_TRUE(alone.feasible);
  EXPECT_NE(alone.reason.find("needs several passes"), std::string::npos) << alone.reason;
}

TEST_F(CostModelTest, GroupWithAnAiCpuNodeIsNotFeasible) {
  std::vector<OpNode> g = {
      Op("Relu", {T("x", kF32, {1000})}, {T("r", kF32, {1000})}),
      Op("NonZero", {T("r", kF32, {1000})}, {Outside(T("nz", kI64, {1, -1}))}),
  };
  Cost c = model.EstimateGroup(g);
  EXPECT_FALSE(c.feasible);
  EXPECT_NE(c.reason.find("mixes 'NonZero' (NonZero) on aicpu with 'Relu' (Relu) on vector"), std::string::npos)
      << c.reason;
  // Estimated anyway: the AI CPU's rate on its 1000 * 1 elements, the Relu's on the vector.
  EXPECT_REL(c.compute_seconds, 1000 / kVecF32 + 1000 / 8e9);
}

TEST_F(CostModelTest, HostNodesMixedWithCoreNodesAreNotFeasible) {
  std::vector<OpNode> g = {
      Op("Shape", {T("x", kF32, {4, 8})}, {T("s", kI64, {2})}),
      Op("Relu", {T("x", kF32, {4, 8})}, {Outside(T("y", kF32, {4, 8}))}),
  };
  Cost c = model.EstimateGroup(g);
  EXPECT_FALSE(c.feasible);
  EXPECT_NE(c.reason.find("host work is not a device kernel"), std::string::npos) << c.reason;
}

TEST_F(CostModelTest, HostOnlyWorkCostsNoLaunch) {
  // Shape -> Gather of a small int64 tensor: shape arithmetic on the host.
  OpNode shape = Op("Shape", {T("x", kF32, {4, 8})}, {T("s", kI64, {2})});
  Cost one = model.EstimateNode(shape);
  EXPECT_EQ(one.engine, "host");
  EXPECT_EQ(one.launches, 0u);
  EXPECT_EQ(one.offchip_bytes, 0u);
  EXPECT_EQ(one.seconds, 0);
  std::vector<OpNode> g = {shape, Op("Gather", {T("s", kI64, {2}), Ints("i", {0})}, {Outside(T("d", kI64, {1}))})};
  Cost c = model.EstimateGroup(g);
  EXPECT_TRUE(c.feasible) << c.reason;
  EXPECT_EQ(c.launches, 0u);
  EXPECT_EQ(c.launch_seconds, 0);
  EXPECT_EQ(c.offchip_bytes, 0u);
}

TEST_F(CostModelTest, ConstantsInAGroupAreInputs) {
  // A body with an embedded Constant: the constant's bytes are read like a weight; no host node is "mixed in".
  std::vector<OpNode> g = {
      Op("Constant", {}, {Const(T("c", kF32, {256}))}),
      Op("Add", {T("x", kF32, {256}), T("c", kF32, {256})}, {Outside(T("y", kF32, {256}))}),
  };
  Cost c = model.EstimateGroup(g);
  EXPECT_TRUE(c.feasible) << c.reason;
  EXPECT_EQ(c.engine, "vector");
  EXPECT_EQ(c.offchip_bytes, 3u * 256 * 4);
}

TEST_F(CostModelTest, SymbolicDimsAreAssumedAndSaid) {
  TensorInfo x = T("x", kF16, {-1, 1024});
  x.symbols[0] = "batch";
  Cost c = model.EstimateNode(Op("Relu", {x}, {x}));
  EXPECT_EQ(c.flops, 1024u);
  EXPECT_NE(c.reason.find("symbolic dims taken as 1 (assumptions.symbolic_dim): batch"), std::string::npos)
      << c.reason;
  TensorInfo unknown;
  unknown.id = "u";
  unknown.elem_type = kF16;
  Cost u = model.EstimateNode(Op("Relu", {unknown}, {T("y", kF16, {1})}));
  EXPECT_NE(u.reason.find("shapes unknown, counted as 1 element(s): u"), std::string::npos) << u.reason;
}

TEST_F(CostModelTest, RateFallsBackToTheSlowestAndSaysSo) {
  // No int8 rate on the vector engine of the test chip.
  Cost c = model.EstimateNode(Op("Add", {T("a", kI8, {256}), T("b", kI8, {256})}, {T("y", kI8, {256})}));
  EXPECT_REL(c.compute_seconds, 256 / kVecF32);
  EXPECT_NE(c.reason.find("no int8 rate on vector: used its slowest"), std::string::npos) << c.reason;
}

TEST_F(CostModelTest, ViewsAndConstantsAloneCostNothing) {
  Cost v = model.EstimateNode(Op("Reshape", {T("x", kF32, {4, 4}), Ints("s", {16})}, {T("y", kF32, {16})}));
  EXPECT_EQ(v.launches, 0u);
  EXPECT_EQ(v.seconds, 0);
  EXPECT_NE(v.reason.find("a view"), std::string::npos);
}

}  // namespace
}  // namespace kiln::ascend
