// MatMulInteger (int32 result) and QLinearMatMul (requantized to y_zero_point's type). A [..., M, K] and
// B [..., K, N] are widened to int32 less their zero points -- per tensor, per row of A and per column of B,
// either one set ([M], [N]) or one per matrix of the stack ([..., M, 1], [..., 1, N]) -- and multiplied exactly
// in int32 through Eigen. QLinearMatMul then requantizes each sum with (a_scale * b_scale) / y_scale, rounded half
// to even and saturated (quant/quant_math.h): the order of ONNX Runtime's kernel, so results agree bit for bit.
#include <kiln/kiln_plugin_parts.hpp>
#include "quant/quant_params.h"

namespace kiln::kernels {
namespace {

using nn::Invalid;

// The int32 product and what requantization needs to find each output's row and column parameters.
struct IntProduct {
  std::vector<int32_t> y;
  Dims dims;     // the output dims
  Dims a_dims, b_dims;  // A and B after 1-D promotion
  int64_t M = 0, N = 0;
  nn::BatchPlan plan;  // per output matrix: the matrices of A and B it multiplies
};

IntProduct MatMulInt(const std::string& op, const sdk::TensorView& A, const sdk::TensorView& B,
                     const sdk::TensorView& AZ, const sdk::TensorView& BZ) {
  IntProduct r;
  r.a_dims.assign(A.Dims().begin(), A.Dims().end());
  r.b_dims.assign(B.Dims().begin(), B.Dims().end());
  if (r.a_dims.empty() || r.b_dims.empty()) Invalid(op, "scalar operands are not allowed");
  const bool a_vec = r.a_dims.size() == 1, b_vec = r.b_dims.size() == 1;
  if (a_vec) r.a_dims = {1, r.a_dims[0]};
  if (b_vec) r.b_dims = {r.b_dims[0], 1};
  const int64_t M = r.M = r.a_dims[r.a_dims.size() - 2];
  const int64_t N = r.N = r.b_dims.back();
  const int64_t K = r.a_dims.back();
  if (r.b_dims[r.b_dims.size() - 2] != K)
    Invalid(op, "inner dims differ: " + nn::DimsStr(A.Dims()) + " x " + nn::DimsStr(B.Dims()));
  const int64_t a_mats = A.ElementCount() / std::max<int64_t>(M * K, 1);
  const int64_t b_mats = B.ElementCount() / std::max<int64_t>(K * N, 1);
  const quant::MatrixParam azp = quant::ResolveMatrixParam(op, "a_zero_point", AZ, r.a_dims, true);
  const quant::MatrixParam bzp = quant::ResolveMatrixParam(op, "b_zero_point", BZ, r.b_dims, false);
  const std::vector<int32_t> az = quant::ZeroPointsFor(op, "a_zero_point", AZ, azp.per * (azp.batched ? a_mats : 1));
  const std::vector<int32_t> bz = quant::ZeroPointsFor(op, "b_zero_point", BZ, bzp.per * (bzp.batched ? b_mats : 1));
  const std::vector<int32_t> a = quant::Centered(A, az, [&](int64_t i) { return azp.Index(i / (M * K), (i / K) % M); });
  const std::vector<int32_t> b = quant::Centered(B, bz, [&](int64_t i) { return bzp.Index(i / (K * N), i % N); });
  std::span<const int64_t> a_batch(r.a_dims.data(), r.a_dims.size() - 2), b_batch(r.b_dims.data(), r.b_dims.size() - 2);
  r.plan = nn::PlanBatches(op, a_batch, b_batch);
  r.dims = r.plan.batch;
  if (!a_vec) r.dims.push_back(M);
  if (!b_vec) r.dims.push_back(N);
  r.y.resize(static_cast<size_t>(NumElements(r.plan.batch) * M * N));
  for (size_t i = 0; i < r.plan.a_index.size(); ++i)
    nn::Gemm<int32_t>(false, false, M, N, K, 1, a.data() + r.plan.a_index[i] * M * K,
                      b.data() + r.plan.b_index[i] * K * N, 0, r.y.data() + static_cast<int64_t>(i) * M * N);
  return r;
}

void MatMulInteger(sdk::KernelContext& ctx) {
  IntProduct r = MatMulInt("MatMulInteger", ctx.RequiredInput(0), ctx.RequiredInput(1), ctx.Input(2), ctx.Input(3));
  sdk::MutableTensor Y = ctx.AllocOutput(0, KILN_ELEM_INT32, r.dims);
  std::copy(r.y.begin(), r.y.end(), Y.MutableValues<int32_t>().begin());
}

void QLinearMatMul(sdk::KernelContext& ctx) {
  const std::string op = "QLinearMatMul";
  sdk::TensorView A = ctx.RequiredInput(0), AS = ctx.RequiredInput(1), AZ = ctx.Input(2);
  sdk::TensorView B = ctx.RequiredInput(3), BS = ctx.RequiredInput(4), BZ = ctx.Input(5);
  sdk::TensorView YS = ctx.RequiredInput(6), YZ = ctx.Input(7);
  const IntProduct r = MatMulInt(op, A, B, AZ, BZ);
  const quant::MatrixParam asp = quant::ResolveMatrixParam(op, "a_scale", AS, r.a_dims, true);
  const quant::MatrixParam bsp = quant::ResolveMatrixParam(op, "b_scale", BS, r.b_dims, false);
  const std::vector<float> as = quant::ReadScales(op, AS, "a_scale", false);
  const std::vector<float> bs = quant::ReadScales(op, BS, "b_scale", false);
  const std::vector<float> ys = quant::ReadScales(op, YS, "y_scale", true);
  if (ys.size() != 1) Invalid(op, "y_scale must be a single value");
  const int64_t M = r.M, N = r.N;
  if (asp.per == 1 && bsp.per == 1) {
    const float m = quant::RequantMultiplier(as[0], bs[0], ys[0]);
    quant::WriteRequantized(ctx, op, r.y, r.dims, YZ, [m](int64_t) { return m; });
    return;
  }
  quant::WriteRequantized(ctx, op, r.y, r.dims, YZ, [&](int64_t i) {
    const int64_t mat = i / (M * N), row = (i / N) % M, col = i % N;
    return quant::RequantMultiplier(as[asp.Index(r.plan.a_index[mat], row)],
                                    bs[bsp.Index(r.plan.b_index[mat], col)], ys[0]);
  });
}

}  // namespace
}  // namespace kiln::kernels

KILN_PLUGIN_PART(QLinearMatMul) {
  using namespace kiln::kernels;
  const std::vector<int32_t> q8 = {KILN_ELEM_UINT8, KILN_ELEM_INT8};
  reg.AddKernelFn({.op_type = "MatMulInteger", .since_version = 10, .elem_types = q8}, MatMulInteger);
  reg.AddKernelFn({.op_type = "QLinearMatMul", .since_version = 10, .elem_types = q8}, QLinearMatMul);
}
