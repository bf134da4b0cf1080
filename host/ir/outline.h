// Outlining a set of nodes into a model-local function with one call in its place, and inlining a call back.
//
// Outline(g, nodes): the set's nodes move into a new function's body (copied, then deleted from g), and a call
// node takes their place. The call reads what the set read from outside it: graph inputs, outer-scope values,
// other nodes' outputs, and constants (small ones may be copied into the body as Constant nodes instead). Its
// outputs are the values the set computed that are read outside it or are graph outputs: those values move to the
// call (TransferOutput), so their names, types and readers stay as they were. It refuses, changing nothing, when
// the set is empty or spans graphs, when it is not convex (a path leaves it and comes back: the call would be its
// own ancestor), or when a value it computes is read outside it but is not among the requested outputs (unless
// extra outputs are allowed). With reuse, a function of the same domain whose canonical form (canonical_form.h)
// equals the new one's is called instead, so every group of the same shape shares one body.
//
// Inline(call): the body is copied in the call's place with attribute references bound to the call's attributes
// (function.h), and the copies of the body's outputs take over the call's output values. The function stays.
// Outline then Inline gives back the graph that was outlined, names included.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln {

class Function;
class Graph;
class Model;
class Node;
class Value;

struct OutlineOptions {
  std::string domain = "kiln.fused";
  std::string name = "group";
  std::vector<Value*> outputs;  // empty: every value the set computes that is read outside it
  bool allow_extra_outputs = false;
  bool reuse_body = false;
  bool attributes_by_reference = false;
  bool assume_convex = false;  // the caller checked convexity (the host then checks for cycles afterwards)
  uint64_t embed_constant_max_bytes = 0;
  std::string call_name;
};

struct OutlineResult {
  Node* call = nullptr;
  Function* function = nullptr;
  std::string refusal;  // why nothing was done; empty on success
};

OutlineResult Outline(Graph& g, const std::vector<Node*>& nodes, const OutlineOptions& options);

// Throws InternalError when `call` calls no function of its model.
void Inline(Node& call);

// What runs for one call: a copy of f's body as a parentless graph of `into`, its attribute references bound to the
// call's attributes (left out where the call omits one and the function has no default).
std::unique_ptr<Graph> InstantiateBody(const Function& f, const Node& call, Model& into);

// The work one call does, flat: copies f's body into `g` (any graph) with its attribute references bound to
// `call`'s attributes, the body's inputs reading `inputs` by position (absent past their end), and expands every
// call of a model-local function the body makes the same way, to any depth (ModelError past 64, which only a
// recursive function reaches). Returns the values standing for the body's outputs. The copies' values are
// untyped: a body shared by calls of different shapes has the types of whichever call it was first made for.
std::vector<Value*> ExpandCall(const Function& f, const Node& call, Graph& g, const std::vector<Value*>& inputs);

}  // namespace kiln
