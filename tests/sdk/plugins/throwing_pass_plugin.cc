// Loader and roll-back test plugin, with the C++ wrapper: ThrowingPass changes the graph, then throws a
// std::runtime_error mid-pass, which the wrapper must turn into a status. Every node it visits gets
// `_kiln_test_touched`; the first visit that finds two other nodes already touched throws. On a graph of three or
// more nodes the pass always fails after two calls that changed it and kept their changes (the host then holds the
// last one's changes apart from the earlier ones'); rolling it back must restore the graph exactly.
#include <kiln/kiln_plugin.hpp>

#include <algorithm>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace {

namespace sdk = kiln::sdk;

constexpr std::string_view kTouched = "_kiln_test_touched";

class ThrowingPass final : public sdk::NodePass {
 public:
  static constexpr std::string_view kName = "ThrowingPass";
  static constexpr std::string_view kDescription = "marks nodes, then throws mid-pass";

  void Run(sdk::PassContext& ctx, sdk::Node node) override {
    node.SetInt(kTouched, 1);
    std::vector<sdk::Node> nodes = node.OwnerGraph().Nodes();
    const auto others = std::ranges::count_if(nodes, [&](sdk::Node n) { return n != node && n.HasAttr(kTouched); });
    if (others >= 2) throw std::runtime_error("ThrowingPass throws mid-pass (on purpose)");
    ctx.AddCounter("touched");
  }
};

}  // namespace

KILN_PLUGIN("throwing_pass", "1.0.0", "a pass that throws through the C++ wrapper") {
  reg.AddNodePass<ThrowingPass>();
}
