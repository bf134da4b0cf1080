// The reference executor: runs a graph on the registered kernels (plugin level first, then built-ins) in
// topological order, with If, Loop and Scan bodies run by the executor itself and sequence and optional values
// passed through. Each intermediate value is freed after its last use, so peak memory follows the live set.
#pragma once

#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "kernels/kernel_registry.h"
#include "kernels/runtime_value.h"

namespace kiln {

class Function;
class Graph;
class Model;
class Node;
class Value;

class Executor {
 public:
  Executor(const Model& model, const KernelRegistry& kernels);
  ~Executor();

  // Runs the model with `inputs` bound to its graph inputs in order (graph inputs that are initializers take
  // the initializer when no value is given). Returns the graph outputs in order. Throws kiln::Error naming the
  // node when a kernel is missing or fails.
  std::vector<RtValue> Run(const std::vector<RtValue>& inputs) const;

  // Called with each value a node of the top graph computes, node by node in the order they run (topological),
  // before the value may be freed: kiln bisect compares intermediate values by name.
  using Observer = std::function<void(const Node& node, const Value& value, const RtValue& computed)>;
  void set_observer(Observer observer) { observer_ = std::move(observer); }

  // The graph inputs a caller must feed (those that are not also initializers).
  static std::vector<const Value*> RequiredInputs(const Graph& g);

 private:
  struct Env;
  std::vector<RtValue> RunGraph(const Graph& g, Env& env) const;
  void RunNode(const Node& n, Env& env) const;
  void RunIf(const Node& n, Env& env, std::vector<RtValue>& outputs) const;
  void RunLoop(const Node& n, Env& env, std::vector<RtValue>& outputs) const;
  void RunScan(const Node& n, Env& env, std::vector<RtValue>& outputs) const;
  void RunSequenceMap(const Node& n, Env& env, std::vector<RtValue>& outputs) const;
  // A call of a model-local function: its body, instantiated for this call (attributes bound) once and cached.
  void RunCall(const Node& n, const Function& f, const std::vector<RtValue>& inputs, Env& env,
               std::vector<RtValue>& outputs) const;
  int64_t OpsetFor(const Node& n, const Env& env) const;

  const Model& model_;
  const KernelRegistry& kernels_;
  // Instantiated function bodies live in a scratch model of their own, keyed by the call node.
  mutable std::unique_ptr<Model> scratch_;
  mutable std::unordered_map<const Node*, std::unique_ptr<Graph>> instances_;
  Observer observer_;
};

}  // namespace kiln
