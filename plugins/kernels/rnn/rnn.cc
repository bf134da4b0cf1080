// RNN (opset 7, 14+): the simple recurrent network Ht = f(Xt*W^T + Ht-1*R^T + Wb + Rb), every direction,
// layout, activation (with alpha/beta), clip and sequence_lens. Gate products through Eigen (rnn_common.h).
#include <kiln/kiln_plugin_parts.hpp>
#include "rnn/rnn_common.h"

namespace kiln::kernels::rnn {
namespace {

void RunRnn(sdk::KernelContext& ctx) {
  DispatchRecurrent(ctx, [&]<typename T, typename C>() {
    RecurrentInputs<C> in = ReadInputs<T, C>(ctx, 1, "RNN");
    std::vector<Activation> acts = ParseActivations(ctx, {"Tanh"}, in.dirs);
    const int64_t S = in.seq, B = in.batch, H = in.hidden, D = in.dirs;
    std::vector<C> y(S * D * B * H, C(0)), yh(in.init_h);
    MatR<C> hr(B, H);
    for (int64_t d = 0; d < D; ++d) {
      MatR<C> xw = InputProjection(in, d);
      CMapR<C> r(in.r.data() + d * H * H, H, H);
      const C* rb = in.b.data() + d * 2 * H + H;
      MapR<C> h(yh.data() + d * B * H, B, H);
      std::vector<C> g(H);
      for (int64_t s = 0; s < S; ++s) {
        hr.noalias() = h * r.transpose();
        for (int64_t b = 0; b < B; ++b) {
          const int64_t t = TimeIndex(in, d, s, b);
          if (t < 0) continue;
          const C* x = &xw(t * B + b, 0);
          for (int64_t k = 0; k < H; ++k) g[k] = x[k] + hr(b, k) + rb[k];
          acts[d].Apply(g.data(), H, in.clip);
          std::copy(g.begin(), g.end(), &h(b, 0));
          std::copy(g.begin(), g.end(), &y[((t * D + d) * B + b) * H]);
        }
      }
    }
    WriteOutputs<T, C>(ctx, in, y, yh, nullptr);
  });
}

}  // namespace
}  // namespace kiln::kernels::rnn

KILN_PLUGIN_PART(Rnn) {
  reg.AddKernelFn({.op_type = "RNN", .since_version = 7}, kiln::kernels::rnn::RunRnn);
}
