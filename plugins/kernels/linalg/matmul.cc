// MatMul (numpy matmul: 1-D promotion, broadcast batch dims) and Gemm (transA/transB, alpha, beta, C broadcast
// to [M, N]), both through Eigen's GEMM. float16/bfloat16 are widened to float for the product.
#include <kiln/kiln_plugin_parts.hpp>
#include "core/nn_util.h"

namespace kiln::kernels {
namespace {

using nn::Invalid;

// Y = A @ B for the compute type C over whole stacks already in C.
template <typename C>
void BatchedMatMul(const C* a, const C* b, C* y, const nn::BatchPlan& plan, int64_t M, int64_t K, int64_t N,
                   bool fold_a) {
  if (fold_a) {  // B is one matrix and A's stack is contiguous: one [batch*M, K] x [K, N] product.
    nn::Gemm<C>(false, false, NumElements(plan.batch) * M, N, K, C(1), a, b, C(0), y);
    return;
  }
  for (size_t i = 0; i < plan.a_index.size(); ++i)
    nn::Gemm<C>(false, false, M, N, K, C(1), a + plan.a_index[i] * M * K, b + plan.b_index[i] * K * N, C(0),
                y + static_cast<int64_t>(i) * M * N);
}

void MatMul(sdk::KernelContext& ctx) {
  sdk::TensorView A = ctx.RequiredInput(0), B = ctx.RequiredInput(1);
  if (A.ElemType() != B.ElemType()) Invalid("MatMul", "A and B have different element types");
  Dims ad(A.Dims().begin(), A.Dims().end()), bd(B.Dims().begin(), B.Dims().end());
  if (ad.empty() || bd.empty()) Invalid("MatMul", "scalar operands are not allowed");
  const bool a_vec = ad.size() == 1, b_vec = bd.size() == 1;
  if (a_vec) ad = {1, ad[0]};
  if (b_vec) bd = {bd[0], 1};
  const int64_t M = ad[ad.size() - 2], K = ad.back(), N = bd.back();
  if (bd[bd.size() - 2] != K)
    Invalid("MatMul", "inner dims differ: " + nn::DimsStr(A.Dims()) + " x " + nn::DimsStr(B.Dims()));
  std::span<const int64_t> a_batch(ad.data(), ad.size() - 2), b_batch(bd.data(), bd.size() - 2);
  nn::BatchPlan plan = nn::PlanBatches("MatMul", a_batch, b_batch);
  Dims yd = plan.batch;
  if (!a_vec) yd.push_back(M);
  if (!b_vec) yd.push_back(N);
  const bool fold_a = NumElements(b_batch) == 1 && NumElements(a_batch) == NumElements(plan.batch);
  sdk::MutableTensor Y = ctx.AllocOutput(0, A.ElemType(), yd);
  Dispatch<TypeList<float, double, half, bfloat16, int32_t, int64_t, uint32_t, uint64_t>>(
      A.ElemType(), [&]<typename T>() {
        using C = Compute<T>;
        if constexpr (std::is_same_v<T, C>) {
          BatchedMatMul<C>(nn::In<T>(A), nn::In<T>(B), nn::Out<T>(Y), plan, M, K, N, fold_a);
        } else {
          std::vector<C> a = nn::Widen(nn::In<T>(A), A.ElementCount()), b = nn::Widen(nn::In<T>(B), B.ElementCount());
          std::vector<C> y(static_cast<size_t>(Y.ElementCount()));
          BatchedMatMul<C>(a.data(), b.data(), y.data(), plan, M, K, N, fold_a);
          nn::Convert(y.data(), nn::Out<T>(Y), Y.ElementCount());
        }
      });
}

void Gemm(sdk::KernelContext& ctx) {
  sdk::TensorView A = ctx.RequiredInput(0), B = ctx.RequiredInput(1), Cin = ctx.Input(2);
  if (A.Rank() != 2 || B.Rank() != 2)
    Invalid("Gemm", "A and B must be 2-D, got " + nn::DimsStr(A.Dims()) + " and " + nn::DimsStr(B.Dims()));
  if (A.ElemType() != B.ElemType()) Invalid("Gemm", "A and B have different element types");
  const bool ta = ctx.GetInt("transA", 0) != 0, tb = ctx.GetInt("transB", 0) != 0;
  const float alpha = ctx.GetFloat("alpha", 1.0f), beta = ctx.GetFloat("beta", 1.0f);
  const int64_t M = ta ? A.Dims()[1] : A.Dims()[0], K = ta ? A.Dims()[0] : A.Dims()[1];
  const int64_t KB = tb ? B.Dims()[1] : B.Dims()[0], N = tb ? B.Dims()[0] : B.Dims()[1];
  if (K != KB) Invalid("Gemm", "inner dims differ: " + std::to_string(K) + " vs " + std::to_string(KB));
  const Dims yd = {M, N};
  const bool use_c = Cin && Cin.ElementCount() > 0 && beta != 0.0f;
  if (use_c) {
    if (Cin.ElemType() != A.ElemType()) Invalid("Gemm", "C has another element type than A");
    std::span<const int64_t> cd = Cin.Dims();
    if (cd.size() > 2) Invalid("Gemm", "C has rank > 2");
    for (size_t i = 0; i < cd.size(); ++i)
      if (cd[i] != 1 && cd[i] != yd[2 - cd.size() + i])
        Invalid("Gemm", "C " + nn::DimsStr(cd) + " does not broadcast to " + nn::DimsStr(yd));
  }
  sdk::MutableTensor Y = ctx.AllocOutput(0, A.ElemType(), yd);
  Dispatch<TypeList<float, double, half, bfloat16, int32_t, int64_t, uint32_t, uint64_t>>(
      A.ElemType(), [&]<typename T>() {
        using C = Compute<T>;
        std::vector<C> a_buf, b_buf, y_buf;
        const C *a, *b;
        C* y;
        if constexpr (std::is_same_v<T, C>) {
          a = nn::In<T>(A);
          b = nn::In<T>(B);
          y = nn::Out<T>(Y);
        } else {
          a_buf = nn::Widen(nn::In<T>(A), A.ElementCount());
          b_buf = nn::Widen(nn::In<T>(B), B.ElementCount());
          y_buf.resize(static_cast<size_t>(M * N));
          a = a_buf.data();
          b = b_buf.data();
          y = y_buf.data();
        }
        if (use_c) {  // Y = C broadcast; then Y = alpha*AB + beta*Y.
          const T* c = nn::In<T>(Cin);
          BroadcastIndex bi(Cin.Dims(), yd);
          for (int64_t i = 0; i < M * N; ++i, bi.Next()) y[i] = static_cast<C>(c[bi.index()]);
        }
        nn::Gemm<C>(ta, tb, M, N, K, static_cast<C>(alpha), a, b, use_c ? static_cast<C>(beta) : C(0), y);
        if constexpr (!std::is_same_v<T, C>) nn::Convert(y, nn::Out<T>(Y), M * N);
      });
}

std::vector<int32_t> MatMulTypes() {
  return {KILN_ELEM_FLOAT,  KILN_ELEM_DOUBLE, KILN_ELEM_FLOAT16, KILN_ELEM_BFLOAT16,
          KILN_ELEM_INT32,  KILN_ELEM_INT64,  KILN_ELEM_UINT32,  KILN_ELEM_UINT64};
}

}  // namespace
}  // namespace kiln::kernels

KILN_PLUGIN_PART(MatMulGemm) {
  using namespace kiln::kernels;
  reg.AddKernelFn({.op_type = "MatMul", .since_version = 1, .elem_types = MatMulTypes()}, MatMul);
  reg.AddKernelFn({.op_type = "Gemm", .since_version = 1, .elem_types = MatMulTypes()}, Gemm);
}
