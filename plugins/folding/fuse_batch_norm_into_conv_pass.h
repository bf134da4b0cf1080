// FuseBatchNormIntoConvPass: an inference BatchNormalization after a Conv is folded into the Conv's weights.
//
//   y = BatchNormalization(Conv(x, W, b), scale, B, mean, var)   ->   y = Conv(x, W', b')
//
//   with, per output channel c and f = scale[c] / sqrt(var[c] + epsilon):
//     W'[c, ...] = W[c, ...] * f
//     b'[c]      = (b[c] - mean[c]) * f + B[c]        (b = 0 when the Conv has no bias)
//
// What and when. A node pass on the BatchNormalization, when: it is in inference form (training_mode 0, spatial
// 1 and is_test 1 where the opset has them, and no output but Y, since the running-statistics outputs mean
// training in opsets 9 to 13), and Y is not a graph output (the Conv's output
// takes Y's place, and the graph's declared outputs keep their names); its input is the output of a Conv that
// nothing else reads and that is not a graph output; W, b (if present), scale, B, mean and var are FLOAT
// constants; W's dimension 0 and every per-channel operand hold C = the channel count. Anything else (another
// element type, a weight that is not a constant, a shared Conv output) is left alone. The new W' and b' are new
// constants, so a W shared with another Conv is not changed under it. W' is a computed constant (ABI 1.10): its
// bytes are made from W's where the model file keeps them when they are needed (written to the output a piece at
// a time), never held whole unless a later pass reads them.
//
// Why correct. In inference BatchNormalization is per channel affine: y = (z - mean) * f + B with f as above,
// z = Conv(x, W, b). Conv is linear in W and b per output channel: z[n, c, ...] = sum(W[c, ...] * x-window) + b[c].
// So (z - mean) * f + B = sum((W[c, ...] * f) * x-window) + (b[c] - mean[c]) * f + B[c] = Conv(x, W', b'). The
// factors are computed in double and rounded once to float; the result differs from the unfused graph only by
// float rounding.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <array>
#include <string_view>

namespace kiln::folding {

class FuseBatchNormIntoConvPass final : public sdk::NodePass {
 public:
  static constexpr std::string_view kName = "FuseBatchNormIntoConvPass";
  static constexpr std::array<std::string_view, 1> kOpTypes = {"BatchNormalization"};
  static constexpr std::string_view kDescription =
      "BatchNormalization(Conv(x, W, b)) in inference form -> Conv(x, W', b') with the scale folded in";

  void Run(sdk::PassContext& ctx, sdk::Node node) override;
};

}  // namespace kiln::folding
