// ConstantNodeToInitializerPass: a Constant node becomes a graph constant (an initializer).
//
//   c = Constant <value = t> ()   ->   initializer t, read where c was read
//
// What and when. A node pass on Constant nodes whose value the host can read (value, value_float(s),
// value_int(s), value_string(s), sparse_value: whatever the host resolves as the node's constant data) and whose
// output is not a graph output (the graph's declared outputs keep their names, and an initializer cannot be one
// without renaming it). The new constant gets a fresh name derived from the old one; intermediate names carry
// no meaning. This is what ONNX Runtime does when it loads a model: Constant nodes become initializers, so they
// no longer count as nodes to run.
//
// Why correct. A Constant node has no inputs and always returns the same tensor; an initializer that is not a
// graph input is that same tensor without a node. Every reader reads identical data, type and shape.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <array>
#include <string_view>

namespace kiln::folding {

class ConstantNodeToInitializerPass final : public sdk::NodePass {
 public:
  static constexpr std::string_view kName = "ConstantNodeToInitializerPass";
  static constexpr std::array<std::string_view, 1> kOpTypes = {"Constant"};
  static constexpr std::string_view kDescription = "Constant nodes become graph constants (initializers)";

  void Run(sdk::PassContext& ctx, sdk::Node node) override;
};

}  // namespace kiln::folding
