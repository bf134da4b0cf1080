// Small node passes for driver tests: each does one thing the driver must handle.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "driver/pass.h"
#include "driver/pass_context.h"
#include "driver/rewrite_helpers.h"
#include "ir/graph.h"

namespace kiln::testing {

// A node pass from a lambda: run(node, ctx) -> changed.
class LambdaPass : public NodePass {
 public:
  LambdaPass(std::string name, std::function<bool(Node&, PassContext&)> run,
             std::function<bool(Graph&, PassContext&)> finish = nullptr)
      : name_(std::move(name)), run_(std::move(run)), finish_(std::move(finish)) {}
  const std::string& name() const override { return name_; }
  bool Run(Node& n, PassContext& ctx) override { return run_ ? run_(n, ctx) : false; }
  bool OnFinishGraph(Graph& g, PassContext& ctx) override { return finish_ ? finish_(g, ctx) : false; }

 private:
  std::string name_;
  std::function<bool(Node&, PassContext&)> run_;
  std::function<bool(Graph&, PassContext&)> finish_;
};

// Identity(x) -> x.
inline bool RemoveIdentity(Node& n, PassContext&) {
  if (n.op_type() != "Identity") return false;
  IsolateAndDeleteNode(n, {0});
  return true;
}

// Renames the op in place and asks for a re-pass: two of these in opposite directions never settle.
inline std::function<bool(Node&, PassContext&)> Flip(std::string from, std::string to) {
  return [from, to](Node& n, PassContext& ctx) {
    if (n.op_type() != from) return false;
    n.SetOpType(to, "");
    ctx.RequestRepass(&n);
    return true;
  };
}

// Replaces the node by a new node of another op type (no re-pass request): two of these in opposite directions
// bring the graph back to a state it was in.
inline std::function<bool(Node&, PassContext&)> Replace(std::string from, std::string to) {
  return [from, to](Node& n, PassContext&) {
    if (n.op_type() != from) return false;
    Graph& g = *n.graph();
    Node* m = g.AddNode(to, {n.input(0)}, 1);
    g.ReplaceAllUsesWith(n.output(0), m->output(0));
    g.RemoveNode(&n);
    return true;
  };
}

}  // namespace kiln::testing
