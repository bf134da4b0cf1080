// ConstantFoldingPass (GE's ConstantFoldingPass): a node whose inputs are all constants (initializers, Constant
// nodes, or potential constants marked by DimensionComputePass) is computed at compile time and replaced by one
// constant per used output; the node and the inputs left without consumers go.
//
// Skipped, as GE does: nodes marked `_do_not_constant_folding` or `no_need_constant_folding` (or whose name
// matches the `skip_names` regex), nodes whose outputs are all known-empty (ReplaceWithEmptyConstPass's), and,
// under oo.memoryPolicy=MemoryPriority, nodes reading a constant of more than 8 elements that has more than one
// consumer (folding would duplicate it). Beyond GE: only deterministic ops (no Random*, Multinomial, Bernoulli,
// training-mode Dropout; kernels flagged nondeterministic are refused by node_compute), nodes holding subgraphs
// are not computed (an If with a constant condition is replaced by its branch instead), and a size policy:
//   fold only if  out_bytes <= oo.constantFolding.maxOutputBytes
//            and  out_bytes <= max(2 x freed, freed + 64 KiB)
// where `freed` is the bytes of the constant inputs the fold frees: a fold may double what it replaces or add at
// most 64 KiB (a causal mask or a rotary table of a decoder), so Tile, Expand and ConstantOfShape never bloat a
// model by megabytes (the pass option max_output_bytes overrides the global option for one placement).
// A Transpose of a stored weight of 1 MiB or more becomes a computed constant (ABI 1.10) instead: its bytes are
// made from the weight's as the model is written, a piece at a time, never held whole (LLaMA's transposed
// projection weights).
// Why correct: the kernels are the reference executor's (plugin kernels first, then the host's built-ins), so
// the constant holds exactly what the node would have computed at run time (a lazy transpose moves the same
// elements to the same places: sdk::StridedCopyRange); a graph output keeps its name.
// Counters: nodes_folded, if_inlined, skipped_marked, skipped_memory_priority, skipped_size, compute_unsupported.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <string_view>
#include <vector>

namespace kiln::folding {

class ConstantFoldingPass : public sdk::NodePass {
 public:
  static constexpr std::string_view kName = "ConstantFoldingPass";
  static constexpr std::string_view kDescription = "fold nodes whose inputs are all constants (GE semantics)";
  static constexpr std::string_view kSwitchOption = "oo.constantFolding";
  static constexpr std::string_view kMaxOutputBytesOption = "oo.constantFolding.maxOutputBytes";
  static constexpr std::string_view kMemoryPolicyOption = "oo.memoryPolicy";
  static std::vector<sdk::OptionSpec> Options();
  void Run(sdk::PassContext& ctx, sdk::Node node) override;
};

}  // namespace kiln::folding
