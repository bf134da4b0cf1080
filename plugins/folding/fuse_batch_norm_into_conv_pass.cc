// FuseBatchNormIntoConvPass: see fuse_batch_norm_into_conv_pass.h.
#include "fuse_batch_norm_into_conv_pass.h"

#include <kiln/kiln_plugin_parts.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
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

// w[i] *= f for each float of `w`, multiplied in double and rounded once. The weights were just copied into `w`
// (when the writer streams them, a piece of 256 KiB still in the core's cache). The loop is plain so the compiler
// vectorises it: ResNet-50 scales 25M weights, and Eigen 3.4 does not vectorise a float -> double -> float cast.
// GCC 12 vectorises it only under the dynamic cost model (CMakeLists.txt) and only out of line: inlined into Run,
// whose calls can throw, it stays scalar (-fopt-info-vec says which).
[[gnu::noinline]] void ScaleFloats(std::span<float> w, double f) {
  for (float& x : w) x = static_cast<float>(static_cast<double>(x) * f);
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

  // W' is a computed constant (ABI 1.10): its bytes are made from W's where the model file keeps them when they
  // are needed, and writing the model streams them to the output a piece at a time, so the compile never holds
  // ResNet-50's 100 MB of new weights whole. b' is small and made now.
  std::vector<double> factors(static_cast<size_t>(channels));
  for (size_t c = 0; c < factors.size(); ++c)
    factors[c] = static_cast<double>(scale[c]) / std::sqrt(static_cast<double>(var[c]) + epsilon);
  std::vector<double> bias_factors = factors;  // W' keeps its own copy
  sdk::Graph g = conv.OwnerGraph();
  std::vector<int64_t> w_dims(wt.Dims().begin(), wt.Dims().end());
  sdk::Value sources[] = {w};
  sdk::Value folded_w = g.ComputedConstant(
      KILN_ELEM_FLOAT, w_dims, sources,
      [factors = std::move(factors), per_channel](std::span<const sdk::StoredTensor> src, uint64_t offset,
                                                  std::span<std::byte> out) {
        // out holds elements [first, first + count): W's copied in one read (from the model file where W lies in
        // its mapping: ABI 1.11), then scaled in place channel by channel, a run at a time.
        src[0].ReadBytes(static_cast<size_t>(offset), out);
        const size_t first = static_cast<size_t>(offset) / sizeof(float), count = out.size() / sizeof(float);
        float* dst = reinterpret_cast<float*>(out.data());  // aligned for floats (the ABI's promise)
        for (size_t i = first; i < first + count;) {
          const size_t c = i / per_channel, end = std::min((c + 1) * per_channel, first + count);
          ScaleFloats(std::span<float>(dst + (i - first), end - i), factors[c]);
          i = end;
        }
      });
  int64_t b_dims[] = {channels};
  sdk::NewConstant folded_b = g.AllocateConstant(KILN_ELEM_FLOAT, b_dims);
  std::span<float> new_b = folded_b.data.MutableValues<float>();
  for (size_t c = 0; c < bias_factors.size(); ++c) {
    double b = has_bias ? static_cast<double>(bias[c]) : 0.0;
    new_b[c] = static_cast<float>((b - static_cast<double>(mean[c])) * bias_factors[c] + static_cast<double>(shift[c]));
  }
  conv.SetInput(1, folded_w);
  conv.SetInput(2, folded_b.value);
  std::vector<int64_t> io_map(bn.OutputCount(), -1);
  io_map[0] = 0;  // Y's readers read the Conv's output
  bn.IsolateAndDelete(io_map);
  ctx.AddCounter("batch_norms_fused");
}

}  // namespace kiln::folding

KILN_PLUGIN_PART(FuseBatchNormIntoConvPass) { reg.AddNodePass<kiln::folding::FuseBatchNormIntoConvPass>(); }
