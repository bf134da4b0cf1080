// FuseBatchNormIntoConvPass: see fuse_batch_norm_into_conv_pass.h.
#include "fuse_batch_norm_into_conv_pass.h"

#include <kiln/kiln_plugin_parts.hpp>

#include <Eigen/Core>

#include <cmath>
#include <span>
#include <vector>

namespace kiln::folding {
namespace {

// The float values of constant `v` when it holds exactly `count` of them; empty otherwise.
std::span<const float> FloatConstant(const sdk::Value& v, int64_t count) {
  if (!v || !v.IsConstant()) return {};
  sdk::TensorView t = v.ConstantData();
  if (!t || t.ElemType() != KILN_ELEM_FLOAT || t.ElementCount() != count) return {};
  std::span<const float> values = t.Values<float>();
  return values.size() == static_cast<size_t>(count) ? values : std::span<const float>();
}

}  // namespace

void FuseBatchNormIntoConvPass::Run(sdk::PassContext& ctx, sdk::Node bn) {
  if (!bn.Is("BatchNormalization") || bn.InputCount() < 5 || bn.OutputCount() < 1) return;
  if (bn.GetInt("training_mode", 0) != 0 || bn.GetInt("spatial", 1) != 1) return;
  if (bn.OwnerGraph().OpsetVersion("") < 7 && bn.GetInt("is_test", 0) == 0) return;
  // Opsets 9 to 13 have no training_mode: the optional running-statistics outputs are what asks for training.
  for (size_t i = 1; i < bn.OutputCount(); ++i)
    if (bn.Output(i)) return;
  sdk::Value y = bn.Output(0);
  sdk::Value z = bn.Input(0);
  if (!y || !z || y.IsGraphOutput() || z.IsGraphOutput() || z.ConsumerCount() != 1) return;
  sdk::Node conv = z.Producer();
  if (!conv || !conv.Is("Conv") || conv.OutputCount() != 1 || conv.InputCount() < 2) return;

  sdk::Value w = conv.Input(1);
  if (!w || !w.IsConstant()) return;
  // The weights are read once, to be replaced, so where the model file keeps them: asking for them aligned would
  // copy a misaligned weight first (ResNet-50's are 100 MB, most of them misaligned in the file).
  sdk::StoredTensor wt = w.ConstantBytes();
  if (!wt || wt.ElemType() != KILN_ELEM_FLOAT || wt.Rank() < 3 || wt.Dims()[0] <= 0) return;
  const int64_t channels = wt.Dims()[0];
  const size_t count = static_cast<size_t>(wt.ElementCount());
  if (wt.ByteSize() != count * sizeof(float)) return;
  const size_t per_channel = count / static_cast<size_t>(channels);

  std::span<const float> bias;
  bool has_bias = conv.InputCount() > 2 && conv.Input(2);
  if (has_bias && (bias = FloatConstant(conv.Input(2), channels)).empty()) return;
  std::span<const float> scale = FloatConstant(bn.Input(1), channels);
  std::span<const float> shift = FloatConstant(bn.Input(2), channels);
  std::span<const float> mean = FloatConstant(bn.Input(3), channels);
  std::span<const float> var = FloatConstant(bn.Input(4), channels);
  if (scale.empty() || shift.empty() || mean.empty() || var.empty()) return;
  const double epsilon = bn.GetFloat("epsilon", 1e-5f);

  // The folded weights and bias are written straight into the new constants (no staging copy: ResNet-50's
  // weights are 100 MB).
  sdk::Graph g = conv.OwnerGraph();
  std::vector<int64_t> w_dims(wt.Dims().begin(), wt.Dims().end());
  int64_t b_dims[] = {channels};
  sdk::NewConstant folded_w = g.AllocateConstant(KILN_ELEM_FLOAT, w_dims);
  sdk::NewConstant folded_b = g.AllocateConstant(KILN_ELEM_FLOAT, b_dims);
  std::span<float> new_w = folded_w.data.MutableValues<float>();
  std::span<float> new_b = folded_b.data.MutableValues<float>();
  using Row = Eigen::Map<Eigen::ArrayXf>;
  const auto n = static_cast<Eigen::Index>(per_channel);
  for (size_t c = 0; c < static_cast<size_t>(channels); ++c) {
    double f = static_cast<double>(scale[c]) / std::sqrt(static_cast<double>(var[c]) + epsilon);
    // Each channel's weights are copied into place, then scaled there in double and rounded once, vectorised
    // (Eigen): ResNet-50 scales 25M of them, a channel at a time while it is in cache.
    std::span<float> row = new_w.subspan(c * per_channel, per_channel);
    wt.CopyTo(c * per_channel, row);
    Row(row.data(), n) = (Row(row.data(), n).cast<double>() * f).cast<float>();
    double b = has_bias ? static_cast<double>(bias[c]) : 0.0;
    new_b[c] = static_cast<float>((b - static_cast<double>(mean[c])) * f + static_cast<double>(shift[c]));
  }
  conv.SetInput(1, folded_w.value);
  conv.SetInput(2, folded_b.value);
  std::vector<int64_t> io_map(bn.OutputCount(), -1);
  io_map[0] = 0;  // Y's readers read the Conv's output
  bn.IsolateAndDelete(io_map);
  ctx.AddCounter("batch_norms_fused");
}

}  // namespace kiln::folding

KILN_PLUGIN_PART(FuseBatchNormIntoConvPass) { reg.AddNodePass<kiln::folding::FuseBatchNormIntoConvPass>(); }
