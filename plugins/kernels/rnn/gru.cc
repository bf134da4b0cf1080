// GRU (opset 7, 14+): gates z, r, h with linear_before_reset, every direction, layout, activation (f, g with
// alpha/beta), clip, sequence_lens and initial_h. Gate products through Eigen (rnn_common.h).
#include <kiln/kiln_plugin_parts.hpp>
#include "rnn/rnn_common.h"

namespace kiln::kernels::rnn {
namespace {

void RunGru(sdk::KernelContext& ctx) {
  DispatchRecurrent(ctx, [&]<typename T, typename C>() {
    RecurrentInputs<C> in = ReadInputs<T, C>(ctx, 3, "GRU");
    std::vector<Activation> acts = ParseActivations(ctx, {"Sigmoid", "Tanh"}, in.dirs);
    const bool lbr = ctx.GetInt("linear_before_reset", 0) != 0;
    const int64_t S = in.seq, B = in.batch, H = in.hidden, D = in.dirs;
    std::vector<C> y(S * D * B * H, C(0)), yh(in.init_h);
    MatR<C> hzr(B, 2 * H), hh(B, H), rh(B, H);
    std::vector<C> gz(H), gr(H), gh(H);
    for (int64_t d = 0; d < D; ++d) {
      const Activation& f = acts[d * 2];
      const Activation& g = acts[d * 2 + 1];
      MatR<C> xw = InputProjection(in, d);
      CMapR<C> r(in.r.data() + d * 3 * H * H, 3 * H, H);
      auto r_zr = r.topRows(2 * H);
      auto r_h = r.bottomRows(H);
      const C* rb = in.b.data() + d * 6 * H + 3 * H;
      MapR<C> h(yh.data() + d * B * H, B, H);
      for (int64_t s = 0; s < S; ++s) {
        hzr.noalias() = h * r_zr.transpose();
        if (lbr) hh.noalias() = h * r_h.transpose();
        std::vector<int64_t> ts(B);
        for (int64_t b = 0; b < B; ++b) {
          ts[b] = TimeIndex(in, d, s, b);
          if (ts[b] < 0) continue;
          const C* x = &xw(ts[b] * B + b, 0);
          for (int64_t k = 0; k < H; ++k) {
            gz[k] = x[k] + hzr(b, k) + rb[k];
            gr[k] = x[H + k] + hzr(b, H + k) + rb[H + k];
          }
          f.Apply(gr.data(), H, in.clip);
          if (lbr) {
            for (int64_t k = 0; k < H; ++k) hh(b, k) = gr[k] * (hh(b, k) + rb[2 * H + k]);
          } else {
            for (int64_t k = 0; k < H; ++k) rh(b, k) = gr[k] * h(b, k);
          }
          std::copy(gz.begin(), gz.end(), &hzr(b, 0));  // keep z for the update below
        }
        if (!lbr) {
          hh.noalias() = rh * r_h.transpose();
          for (int64_t b = 0; b < B; ++b)
            for (int64_t k = 0; k < H; ++k) hh(b, k) += rb[2 * H + k];
        }
        for (int64_t b = 0; b < B; ++b) {
          if (ts[b] < 0) continue;
          const C* x = &xw(ts[b] * B + b, 0);
          for (int64_t k = 0; k < H; ++k) {
            gz[k] = hzr(b, k);
            gh[k] = x[2 * H + k] + hh(b, k);
          }
          f.Apply(gz.data(), H, in.clip);
          g.Apply(gh.data(), H, in.clip);
          C* yp = &y[((ts[b] * D + d) * B + b) * H];
          for (int64_t k = 0; k < H; ++k) h(b, k) = yp[k] = (C(1) - gz[k]) * gh[k] + gz[k] * h(b, k);
        }
      }
    }
    WriteOutputs<T, C>(ctx, in, y, yh, nullptr);
  });
}

}  // namespace
}  // namespace kiln::kernels::rnn

KILN_PLUGIN_PART(Gru) {
  reg.AddKernelFn({.op_type = "GRU", .since_version = 7}, kiln::kernels::rnn::RunGru);
}
