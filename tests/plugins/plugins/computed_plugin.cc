// ABI 1.10's computed constants through the C++ wrapper (computed_cli_test):
//   DoubleWeightsPass   replaces each float constant an Add reads by a computed constant holding twice its values,
//                       made from the stored bytes when needed; then reads a range of each through
//                       ReadConstantBytes and fails unless it holds those values (counter doubled per constant).
//   FailingComputePass  does the same with a computation that fails, so the compile fails when it writes the model.
// With KILN_TEST_COMPUTE_LOG set, each computation appends the bytes it made to that file, one line per call.
#include <kiln/kiln_plugin.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace sdk = kiln::sdk;

// out = 2 * the source's floats at the same offset (read with memcpy: the stored bytes may be misaligned).
void Twice(std::span<const sdk::StoredTensor> src, uint64_t offset, std::span<std::byte> out) {
  const std::byte* in = src[0].Bytes().data() + offset;
  for (size_t i = 0; i < out.size() / sizeof(float); ++i) {
    float v;
    std::memcpy(&v, in + i * sizeof(float), sizeof v);
    v *= 2.0f;
    std::memcpy(out.data() + i * sizeof(float), &v, sizeof v);
  }
  if (const char* log = std::getenv("KILN_TEST_COMPUTE_LOG")) {
    if (FILE* f = std::fopen(log, "a")) {
      std::fprintf(f, "%zu\n", out.size());
      std::fclose(f);
    }
  }
}

template <bool kFail>
void ReplaceAddWeights(sdk::PassContext& ctx, const sdk::Graph& graph) {
  for (const sdk::Node& n : graph.Nodes()) {
    if (!n.Is("Add")) continue;
    for (size_t i = 0; i < n.InputCount(); ++i) {
      sdk::Value w = n.Input(i);
      if (!w || !w.IsConstant() || w.ElemType() != KILN_ELEM_FLOAT) continue;
      std::span<const int64_t> shape = w.Dims();  // valid until the next call
      std::vector<int64_t> dims(shape.begin(), shape.end());
      sdk::Value sources[] = {w};
      sdk::Value twice = graph.ComputedConstant(
          KILN_ELEM_FLOAT, dims, sources,
          [](std::span<const sdk::StoredTensor> src, uint64_t offset, std::span<std::byte> out) {
            if (kFail) throw sdk::Error("the probe cannot compute", KILN_STATUS_FAILED);
            Twice(src, offset, out);
          },
          std::string(w.Name()) + "_twice");
      n.SetInput(i, twice);
      if constexpr (!kFail) {
        // Elements 1 and 2 read back through the host: twice the source's, the rest never made.
        sdk::StoredTensor stored = w.ConstantBytes();
        if (stored.ElementCount() < 3) continue;
        float got[2], want[2] = {2.0f * stored.At<float>(1), 2.0f * stored.At<float>(2)};
        twice.ReadConstantBytes(sizeof(float), std::as_writable_bytes(std::span<float>(got)));
        if (std::memcmp(got, want, sizeof got) != 0)
          throw sdk::Error("ReadConstantBytes gave other values than the computation", KILN_STATUS_INTERNAL);
        ctx.AddCounter("doubled", 1);
      }
    }
  }
}

class DoubleWeightsPass final : public sdk::GraphPass {
 public:
  static constexpr std::string_view kName = "DoubleWeightsPass";
  static constexpr std::string_view kDescription = "replaces Add's float constants by computed doubles";
  void Run(sdk::PassContext& ctx, sdk::Graph graph) override { ReplaceAddWeights<false>(ctx, graph); }
};

class FailingComputePass final : public sdk::GraphPass {
 public:
  static constexpr std::string_view kName = "FailingComputePass";
  static constexpr std::string_view kDescription = "replaces Add's float constants by computations that fail";
  void Run(sdk::PassContext& ctx, sdk::Graph graph) override { ReplaceAddWeights<true>(ctx, graph); }
};

}  // namespace

KILN_PLUGIN("test_computed", "1.0.0", "ABI 1.10 computed constant probes") {
  reg.AddGraphPass<DoubleWeightsPass>();
  reg.AddGraphPass<FailingComputePass>();
}
