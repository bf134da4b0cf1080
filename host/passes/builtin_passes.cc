// The host's own passes. Each is tiny and exists for the driver itself; optimisations live in plugins.
//   NoOpPass: visits every node and changes nothing. It measures the driver's own cost (bench/) and lets a
//   pipeline exercise a walk without rewriting anything.
#include "driver/pass_context.h"
#include "passes/pass_registry.h"

namespace kiln {
namespace {

class NoOpPass final : public NodePass {
 public:
  const std::string& name() const override {
    static const std::string n = "NoOpPass";
    return n;
  }
  bool Run(Node&, PassContext&) override { return false; }
};

}  // namespace

void RegisterBuiltinPasses(PassRegistry& registry) {
  PassInfo noop;
  noop.name = "NoOpPass";
  noop.help = "Visits every node and changes nothing (measures the driver).";
  noop.make_node = [](const PassArgs&) { return std::make_unique<NoOpPass>(); };
  registry.Add(std::move(noop));
}

}  // namespace kiln
