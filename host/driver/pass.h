// The pass contract. A node pass runs on one node at a time during the driver's walk and may ask for re-passes;
// a graph pass sees a whole graph once. Both report whether they changed anything, and keep no state between
// calls but their options. A pass signals failure by throwing; the driver then rolls its change back.
#pragma once

#include <string>

namespace kiln {

class Graph;
class Node;
class OpTypeSet;
class PassContext;

class NodePass {
 public:
  virtual ~NodePass() = default;
  virtual const std::string& name() const = 0;
  // Runs on `node`; returns true when the graph changed.
  virtual bool Run(Node& node, PassContext& ctx) = 0;
  // GE's OnFinishGraph: called when the walk has nothing queued. Nodes passed to ctx.RequestRepass go back on
  // the queue and the walk resumes. Returns true when the graph changed.
  virtual bool OnFinishGraph(Graph& graph, PassContext& ctx) { return false; }
  // False for passes listed only under `after_walk`: their Run is never called.
  virtual bool runs_on_nodes() const { return true; }
  // The op types of the nodes Run can change, or null for every node: the driver calls Run on those nodes only.
  virtual const OpTypeSet* op_types() const { return nullptr; }
};

class GraphPass {
 public:
  virtual ~GraphPass() = default;
  virtual const std::string& name() const = 0;
  virtual bool Run(Graph& graph, PassContext& ctx) = 0;
};

}  // namespace kiln
