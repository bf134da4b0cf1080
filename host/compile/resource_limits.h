// Resource limits of a compile: what an input model may hold, and what passes may spend. Each is a host option
// (`kiln options` lists them) with a default far above real models and far below what would exhaust a machine:
//
//   limits.maxNodes             nodes of the model, subgraphs and function bodies included    (10,000,000)
//   limits.maxTensorBytes       bytes of one tensor: an initializer, a tensor attribute, or a constant a pass
//                               creates                                                         (16 GiB)
//   limits.maxInitializerBytes  bytes of all the model's initializers and tensor attributes     (64 GiB)
//   limits.maxSubgraphDepth     nesting of subgraphs (an If inside a Loop body is depth 2)      (64)
//   limits.maxFoldedBytes       bytes of the constants passes create in one compile (folding)   (4 GiB)
//   limits.passSeconds          time one pass may spend in one walk or graph-pass step          (600 s)
//
// The first four are the input model's: CheckModelLimits runs before anything else looks at the model, and a
// model over one is an invalid model (exit code 2) named with the option. The last two are the passes': a
// constant that would go over limits.maxFoldedBytes (or limits.maxTensorBytes) is refused by the host slot that
// creates it, so the pass call fails; a pass that goes over limits.passSeconds fails when its call returns. Either
// way the failing pass is treated as any failing pass is: its change is rolled back, the compile goes on with a
// warning naming the pass and the option, and under --strict the compile stops (exit code 4).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kiln {

class Model;
class OptionRegistry;
class ResolvedOptions;

inline constexpr std::string_view kMaxNodesOption = "limits.maxNodes";
inline constexpr std::string_view kMaxTensorBytesOption = "limits.maxTensorBytes";
inline constexpr std::string_view kMaxInitializerBytesOption = "limits.maxInitializerBytes";
inline constexpr std::string_view kMaxSubgraphDepthOption = "limits.maxSubgraphDepth";
inline constexpr std::string_view kMaxFoldedBytesOption = "limits.maxFoldedBytes";
inline constexpr std::string_view kPassSecondsOption = "limits.passSeconds";

struct ResourceLimits {
  uint64_t max_nodes = 10'000'000;
  uint64_t max_tensor_bytes = uint64_t{16} << 30;
  uint64_t max_initializer_bytes = uint64_t{64} << 30;
  uint64_t max_subgraph_depth = 64;
  uint64_t max_folded_bytes = uint64_t{4} << 30;
  double pass_seconds = 600;

  // The values in effect in `options` (the defaults above for any not registered).
  static ResourceLimits From(const ResolvedOptions& options);
};

// Registers the six options into `registry` (host options, every level, every place).
void RegisterLimitOptions(OptionRegistry& registry);

// Throws ModelError (exit code 2) naming `model_name`, the option, the limit and what the model has, for the
// first limit the model is over. Counts without copying anything. Returns the main graph's node count, subgraphs
// included (Graph::CountNodes(true), which the walk makes anyway).
uint64_t CheckModelLimits(const Model& model, const ResourceLimits& limits, const std::string& model_name);

// The account of constants created by passes on this thread, held by the Compiler around a run. Outside one
// nothing is counted.
class CreatedTensorScope {
 public:
  explicit CreatedTensorScope(const ResourceLimits& limits);
  ~CreatedTensorScope();
  CreatedTensorScope(const CreatedTensorScope&) = delete;
  CreatedTensorScope& operator=(const CreatedTensorScope&) = delete;
  uint64_t created_bytes() const { return created_; }

 private:
  friend void ChargeCreatedTensor(Model* model, uint64_t bytes);
  const ResourceLimits limits_;
  uint64_t created_ = 0;
  CreatedTensorScope* outer_;
};

// Counts a constant of `bytes` that a pass is about to create in `model` (may be null: nothing to journal in): throws std::length_error naming the
// option when it is over limits.maxTensorBytes or would take the compile's total over limits.maxFoldedBytes.
// The charge is journaled, so a rolled-back call gives its bytes back.
void ChargeCreatedTensor(Model* model, uint64_t bytes);

}  // namespace kiln
