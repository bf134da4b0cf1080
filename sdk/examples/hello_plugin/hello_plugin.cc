// hello_plugin: the smallest useful Kiln plugin, written with the SDK's C++ wrapper and built out of tree.
//
//   HelloIdentityPass  a node pass: Identity(x) -> x. Each Identity node goes, its consumers read x instead.
//                      It keeps an Identity whose output is a graph output, so the graph's output names stay.
//   hello.Double       a custom-domain op: y = 2 * x. A schema (so shape inference goes through it: y has x's
//                      type and shape) and a float kernel (so it runs and folds).
#include <kiln/kiln_plugin.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

namespace {

namespace sdk = kiln::sdk;

class HelloIdentityPass final : public sdk::NodePass {
 public:
  static constexpr std::string_view kName = "HelloIdentityPass";
  static constexpr std::string_view kDescription = "removes Identity nodes (the SDK's example pass)";
  static constexpr std::string_view kSwitchOption = "hello.identityElimination";
  // The host calls Run on Identity nodes only (ABI 1.12; an older host calls it on every node, hence Run's check).
  static constexpr std::array<std::string_view, 1> kOpTypes = {"Identity"};

  void Run(sdk::PassContext& ctx, sdk::Node node) override {
    if (!node.Is("Identity") || node.InputCount() != 1 || !node.Input(0)) return;
    if (node.Output(0).IsGraphOutput()) return;
    const int64_t output_to_input[] = {0};
    node.IsolateAndDelete(output_to_input);
    ctx.AddCounter("identities_removed");
  }
};

class HelloDoubleKernel final : public sdk::Kernel {
 public:
  void Compute(sdk::KernelContext& ctx) override {
    sdk::TensorView x = ctx.RequiredInput(0);
    sdk::MutableTensor y = ctx.AllocOutput(0, KILN_ELEM_FLOAT, x.Dims());
    std::ranges::transform(x.Values<float>(), y.MutableValues<float>().begin(), [](float v) { return 2.0f * v; });
  }
};

}  // namespace

KILN_PLUGIN("hello", "1.0.0", "The SDK example: HelloIdentityPass and the hello.Double op") {
  reg.AddOption(sdk::OptionSpec::Bool("hello.identityElimination", true, "Run HelloIdentityPass."));
  reg.AddNodePass<HelloIdentityPass>();
  reg.AddOpSchema({.domain = "hello", .op_type = "Double", .since_version = 1, .doc = "y = 2 * x"},
                  [](sdk::ShapeContext& ctx) { ctx.SetOutput(0, ctx.InputElemType(0), ctx.InputShape(0)); });
  reg.AddKernel<HelloDoubleKernel>(
      {.domain = "hello", .op_type = "Double", .since_version = 1, .elem_types = {KILN_ELEM_FLOAT}});
}
