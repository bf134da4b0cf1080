// The integer products: MatMulInteger and ConvInteger (int32 results), QLinearMatMul and QLinearConv (requantized
// to the output zero point's type). Operands are widened to int32 less their zero points (per tensor, per row of
// A / column of B, or per output channel of W), then go through Eigen's int32 GEMM (conv via core/nn_conv.h).
#include <kiln/kiln_plugin_parts.hpp>
#include "core/nn_conv.h"

#include <functional>

namespace kiln::kernels {
namespace {

using nn::Invalid;

// Zero points as int32: one value per tensor or `per` values; an absent tensor is zero.
std::vector<int32_t> ZeroPoints(const std::string& op, const sdk::TensorView& z, int64_t per, const char* what) {
  if (!z) return {0};
  std::vector<int32_t> v;
  Dispatch<TypeList<uint8_t, int8_t, int32_t>>(z.ElemType(), [&]<typename Q>() {
    const Q* p = nn::In<Q>(z);
    v.assign(p, p + z.ElementCount());
  });
  if (v.size() != 1 && static_cast<int64_t>(v.size()) != per)
    Invalid(op, std::string(what) + " has " + std::to_string(v.size()) + " values, expected 1 or " +
                    std::to_string(per));
  return v;
}

std::vector<float> Scales(const std::string& op, const sdk::TensorView& s, int64_t per, const char* what) {
  std::vector<float> v = nn::ReadAs<float>(s);
  if (v.size() != 1 && static_cast<int64_t>(v.size()) != per)
    Invalid(op, std::string(what) + " has " + std::to_string(v.size()) + " values, expected 1 or " +
                    std::to_string(per));
  return v;
}

// An 8-bit tensor as int32 less its zero point; zp index = (i / inner) % count (count 1: per tensor).
std::vector<int32_t> Centered(const sdk::TensorView& t, const std::vector<int32_t>& zp, int64_t inner) {
  std::vector<int32_t> out(static_cast<size_t>(t.ElementCount()));
  const int64_t count = static_cast<int64_t>(zp.size());
  Dispatch<TypeList<uint8_t, int8_t>>(t.ElemType(), [&]<typename Q>() {
    const Q* p = nn::In<Q>(t);
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = static_cast<int32_t>(p[i]) - zp[count == 1 ? 0 : (static_cast<int64_t>(i) / inner) % count];
  });
  return out;
}

// The int32 product of A [..., M, K] and B [..., K, N] with zero points a_zp (1 or M) and b_zp (1 or N).
struct IntProduct {
  std::vector<int32_t> y;
  Dims dims;
  int64_t M = 0, N = 0;
};

IntProduct MatMulInt(const std::string& op, const sdk::TensorView& A, const sdk::TensorView& B,
                     const sdk::TensorView& AZ, const sdk::TensorView& BZ) {
  Dims ad(A.Dims().begin(), A.Dims().end()), bd(B.Dims().begin(), B.Dims().end());
  if (ad.empty() || bd.empty()) Invalid(op, "scalar operands are not allowed");
  const bool a_vec = ad.size() == 1, b_vec = bd.size() == 1;
  if (a_vec) ad = {1, ad[0]};
  if (b_vec) bd = {bd[0], 1};
  IntProduct r;
  r.M = ad[ad.size() - 2];
  r.N = bd.back();
  const int64_t K = ad.back();
  if (bd[bd.size() - 2] != K) Invalid(op, "inner dims differ: " + nn::DimsStr(A.Dims()) + " x " + nn::DimsStr(B.Dims()));
  std::vector<int32_t> a = Centered(A, ZeroPoints(op, AZ, r.M, "a_zero_point"), K);
  std::vector<int32_t> b = Centered(B, ZeroPoints(op, BZ, r.N, "b_zero_point"), 1);
  std::span<const int64_t> a_batch(ad.data(), ad.size() - 2), b_batch(bd.data(), bd.size() - 2);
  nn::BatchPlan plan = nn::PlanBatches(op, a_batch, b_batch);
  r.dims = plan.batch;
  if (!a_vec) r.dims.push_back(r.M);
  if (!b_vec) r.dims.push_back(r.N);
  const int64_t M = r.M, N = r.N;
  r.y.resize(static_cast<size_t>(NumElements(plan.batch) * M * N));
  for (size_t i = 0; i < plan.a_index.size(); ++i)
    nn::Gemm<int32_t>(false, false, M, N, K, 1, a.data() + plan.a_index[i] * M * K, b.data() + plan.b_index[i] * K * N,
                      0, r.y.data() + static_cast<int64_t>(i) * M * N);
  return r;
}

void MatMulInteger(sdk::KernelContext& ctx) {
  IntProduct r = MatMulInt("MatMulInteger", ctx.RequiredInput(0), ctx.RequiredInput(1), ctx.Input(2), ctx.Input(3));
  sdk::MutableTensor Y = ctx.AllocOutput(0, KILN_ELEM_INT32, r.dims);
  std::copy(r.y.begin(), r.y.end(), Y.MutableValues<int32_t>().begin());
}

// y = saturate(round(acc * multiplier) + y_zp) into the type of Z (uint8 when absent).
void Requantize(const sdk::KernelContext& ctx, const std::vector<int32_t>& acc, const Dims& dims,
                const sdk::TensorView& Z, const std::function<float(int64_t)>& multiplier_of, int64_t inner,
                int64_t count) {
  const int32_t out_type = Z ? Z.ElemType() : KILN_ELEM_UINT8;
  sdk::MutableTensor Y = ctx.AllocOutput(0, out_type, dims);
  std::vector<float> mult(static_cast<size_t>(count));
  for (int64_t c = 0; c < count; ++c) mult[c] = multiplier_of(c);
  Dispatch<TypeList<uint8_t, int8_t>>(out_type, [&]<typename Q>() {
    const float zp = Z ? static_cast<float>(nn::In<Q>(Z)[0]) : 0.0f;
    Q* y = nn::Out<Q>(Y);
    for (size_t i = 0; i < acc.size(); ++i) {
      const float m = mult[count == 1 ? 0 : (static_cast<int64_t>(i) / inner) % count];
      y[i] = nn::SaturateRound<Q>(std::nearbyint(static_cast<float>(acc[i]) * m) + zp);
    }
  });
}

void QLinearMatMul(sdk::KernelContext& ctx) {
  const std::string op = "QLinearMatMul";
  sdk::TensorView A = ctx.RequiredInput(0), AS = ctx.RequiredInput(1), AZ = ctx.Input(2);
  sdk::TensorView B = ctx.RequiredInput(3), BS = ctx.RequiredInput(4), BZ = ctx.Input(5);
  sdk::TensorView YS = ctx.RequiredInput(6), YZ = ctx.Input(7);
  IntProduct r = MatMulInt(op, A, B, AZ, BZ);
  std::vector<float> as = Scales(op, AS, r.M, "a_scale"), bs = Scales(op, BS, r.N, "b_scale");
  std::vector<float> ys = Scales(op, YS, 1, "y_scale");
  if (YZ && YZ.ElementCount() != 1) Invalid(op, "y_zero_point must be a single value");
  if (as.size() == 1 && bs.size() == 1) {
    Requantize(ctx, r.y, r.dims, YZ, [&](int64_t) { return as[0] * bs[0] / ys[0]; }, 1, 1);
  } else {  // per row of A and/or per column of B: index the [M, N] position
    const int64_t M = r.M, N = r.N;
    Requantize(ctx, r.y, r.dims, YZ,
               [&](int64_t c) {
                 const int64_t row = c / N, col = c % N;
                 return as[as.size() == 1 ? 0 : row] * bs[bs.size() == 1 ? 0 : col] / ys[0];
               },
               1, M * N);
  }
}

// The centered int32 conv of X and W; w_zp per tensor or per output channel.
std::vector<int32_t> ConvInt(const sdk::KernelContext& ctx, const std::string& op, const sdk::TensorView& X,
                             const sdk::TensorView& W, const sdk::TensorView& XZ, const sdk::TensorView& WZ,
                             nn::ConvShape* shape) {
  nn::ConvShape s = nn::MakeConvShape(ctx, op, X, W);
  std::vector<int32_t> xzp = ZeroPoints(op, XZ, 1, "x_zero_point");
  std::vector<int32_t> wzp = ZeroPoints(op, WZ, s.M, "w_zero_point");
  std::vector<int32_t> x = Centered(X, xzp, 1);
  std::vector<int32_t> w = Centered(W, wzp, W.ElementCount() / std::max<int64_t>(s.M, 1));
  std::vector<int32_t> y(static_cast<size_t>(NumElements(s.y_dims)));
  nn::ConvForward<int32_t>(x.data(), w.data(), nullptr, s, y.data());
  *shape = s;
  return y;
}

void ConvInteger(sdk::KernelContext& ctx) {
  nn::ConvShape s;
  std::vector<int32_t> y =
      ConvInt(ctx, "ConvInteger", ctx.RequiredInput(0), ctx.RequiredInput(1), ctx.Input(2), ctx.Input(3), &s);
  sdk::MutableTensor Y = ctx.AllocOutput(0, KILN_ELEM_INT32, s.y_dims);
  std::copy(y.begin(), y.end(), Y.MutableValues<int32_t>().begin());
}

void QLinearConv(sdk::KernelContext& ctx) {
  const std::string op = "QLinearConv";
  sdk::TensorView X = ctx.RequiredInput(0), XS = ctx.RequiredInput(1), XZ = ctx.Input(2);
  sdk::TensorView W = ctx.RequiredInput(3), WS = ctx.RequiredInput(4), WZ = ctx.Input(5);
  sdk::TensorView YS = ctx.RequiredInput(6), YZ = ctx.Input(7), B = ctx.Input(8);
  nn::ConvShape s;
  std::vector<int32_t> acc = ConvInt(ctx, op, X, W, XZ, WZ, &s);
  const int64_t out_size = NumElements(s.win.out);
  if (B) {
    if (B.ElemType() != KILN_ELEM_INT32 || B.ElementCount() != s.M) Invalid(op, "B must be int32 [M]");
    std::span<const int32_t> b = B.Values<int32_t>();
    for (size_t i = 0; i < acc.size(); ++i) acc[i] += b[(static_cast<int64_t>(i) / out_size) % s.M];
  }
  std::vector<float> xs = Scales(op, XS, 1, "x_scale"), ws = Scales(op, WS, s.M, "w_scale");
  std::vector<float> ys = Scales(op, YS, 1, "y_scale");
  if (YZ && YZ.ElementCount() != 1) Invalid(op, "y_zero_point must be a single value");
  Requantize(ctx, acc, s.y_dims, YZ, [&](int64_t m) { return xs[0] * ws[ws.size() == 1 ? 0 : m] / ys[0]; },
             out_size, ws.size() == 1 ? 1 : s.M);
}

}  // namespace
}  // namespace kiln::kernels

KILN_PLUGIN_PART(QLinear) {
  using namespace kiln::kernels;
  const std::vector<int32_t> q8 = {KILN_ELEM_UINT8, KILN_ELEM_INT8};
  reg.AddKernelFn({.op_type = "MatMulInteger", .since_version = 10, .elem_types = q8}, MatMulInteger);
  reg.AddKernelFn({.op_type = "QLinearMatMul", .since_version = 10, .elem_types = q8}, QLinearMatMul);
  reg.AddKernelFn({.op_type = "ConvInteger", .since_version = 10, .elem_types = q8}, ConvInteger);
  reg.AddKernelFn({.op_type = "QLinearConv", .since_version = 10, .elem_types = q8}, QLinearConv);
}
