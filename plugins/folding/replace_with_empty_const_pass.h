// ReplaceWithEmptyConstPass (GE's): a node whose outputs all have a zero dimension computes nothing; each used
// output becomes an empty constant of its type and shape.
// Before: y = Slice(x, [0], [0]), y: float[0,4]     After: y = constant float[0,4] (no elements)
// Not touched: constants, nodes whose output is a graph output or that read nothing, control-flow nodes (If,
// Loop, Scan: their bodies may have effects on other outputs), and nodes marked as created by folding.
// Why correct: a tensor with a zero dimension has no elements, so its value is its type and shape alone; those
// must be static (every dimension a number) to be written.
// Option need_fold (default true): false only marks the node a potential constant.
// Counters: nodes_replaced, nodes_marked.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <string_view>
#include <vector>

namespace kiln::folding {

class ReplaceWithEmptyConstPass : public sdk::NodePass {
 public:
  static constexpr std::string_view kName = "ReplaceWithEmptyConstPass";
  static constexpr std::string_view kDescription = "nodes whose outputs are all empty become empty constants";
  static constexpr std::string_view kSwitchOption = "oo.constantFolding";
  static std::vector<sdk::OptionSpec> Options();
  void Run(sdk::PassContext& ctx, sdk::Node node) override;
};

}  // namespace kiln::folding
