// LSTM (opset 7, 14+): gates i, o, f, c with optional peepholes P (i, o, f), input_forget coupling, every
// direction, layout, activation (f, g, h with alpha/beta), clip, sequence_lens and initial_h / initial_c.
// Gate products through Eigen (rnn_common.h).
#include <kiln/kiln_plugin_parts.hpp>
#include "rnn/rnn_common.h"

namespace kiln::kernels::rnn {
namespace {

void RunLstm(sdk::KernelContext& ctx) {
  DispatchRecurrent(ctx, [&]<typename T, typename C>() {
    RecurrentInputs<C> in = ReadInputs<T, C>(ctx, 4, "LSTM");
    std::vector<Activation> acts = ParseActivations(ctx, {"Sigmoid", "Tanh", "Tanh"}, in.dirs);
    const bool input_forget = ctx.GetInt("input_forget", 0) != 0;
    const int64_t S = in.seq, B = in.batch, H = in.hidden, D = in.dirs;
    std::vector<C> p(D * 3 * H, C(0));
    if (sdk::TensorView pt = seq::OptionalInput(ctx, 7)) {
      if (pt.ElementCount() != D * 3 * H) seq::Invalid("LSTM: P must have shape [num_directions, 3 * hidden_size]");
      p = ToC<T, C>(pt);
    }
    std::vector<C> y(S * D * B * H, C(0)), yh(in.init_h), yc(in.init_c);
    MatR<C> hr(B, 4 * H);
    std::vector<C> gi(H), go(H), gf(H), gc(H), hc(H);
    for (int64_t d = 0; d < D; ++d) {
      const Activation& f = acts[d * 3];
      const Activation& g = acts[d * 3 + 1];
      const Activation& hact = acts[d * 3 + 2];
      MatR<C> xw = InputProjection(in, d);
      CMapR<C> r(in.r.data() + d * 4 * H * H, 4 * H, H);
      const C* rb = in.b.data() + d * 8 * H + 4 * H;
      const C* pi = p.data() + d * 3 * H;
      const C* po = pi + H;
      const C* pf = pi + 2 * H;
      MapR<C> h(yh.data() + d * B * H, B, H);
      MapR<C> c(yc.data() + d * B * H, B, H);
      for (int64_t s = 0; s < S; ++s) {
        hr.noalias() = h * r.transpose();
        for (int64_t b = 0; b < B; ++b) {
          const int64_t t = TimeIndex(in, d, s, b);
          if (t < 0) continue;
          const C* x = &xw(t * B + b, 0);
          const C* hrow = &hr(b, 0);
          C* cp = &c(b, 0);
          for (int64_t k = 0; k < H; ++k) {
            gi[k] = x[k] + hrow[k] + rb[k] + pi[k] * cp[k];
            go[k] = x[H + k] + hrow[H + k] + rb[H + k];
            gf[k] = x[2 * H + k] + hrow[2 * H + k] + rb[2 * H + k] + pf[k] * cp[k];
            gc[k] = x[3 * H + k] + hrow[3 * H + k] + rb[3 * H + k];
          }
          f.Apply(gi.data(), H, in.clip);
          if (input_forget) {
            for (int64_t k = 0; k < H; ++k) gf[k] = C(1) - gi[k];
          } else {
            f.Apply(gf.data(), H, in.clip);
          }
          g.Apply(gc.data(), H, in.clip);
          for (int64_t k = 0; k < H; ++k) {
            cp[k] = gf[k] * cp[k] + gi[k] * gc[k];
            go[k] += po[k] * cp[k];
          }
          f.Apply(go.data(), H, in.clip);
          std::copy_n(cp, H, hc.data());
          hact.Apply(hc.data(), H, in.clip);
          C* hp = &h(b, 0);
          C* yp = &y[((t * D + d) * B + b) * H];
          for (int64_t k = 0; k < H; ++k) hp[k] = yp[k] = go[k] * hc[k];
        }
      }
    }
    WriteOutputs<T, C>(ctx, in, y, yh, &yc);
  });
}

}  // namespace
}  // namespace kiln::kernels::rnn

KILN_PLUGIN_PART(Lstm) {
  reg.AddKernelFn({.op_type = "LSTM", .since_version = 7}, kiln::kernels::rnn::RunLstm);
}
