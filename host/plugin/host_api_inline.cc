// node_inline_subgraph (ABI 1.1): replaces a node (an If whose condition is constant, typically) by a copy of one
// of its subgraphs. The subgraph's nodes are copied into the node's graph in topological order, its initializers
// become initializers there (sharing their bytes), values it reads from outer scopes are read directly, and the
// subgraph's outputs take the place of the node's outputs. Everything goes through journaled IR methods.
//
// Refused (nothing changes): a subgraph with inputs (a Loop or Scan body), one holding subgraphs of its own (the
// IR has no deep copy of graphs yet), or one with fewer outputs than the node.
#include <stdexcept>
#include <unordered_map>

#include "ir/graph.h"
#include "ir/topo_order.h"
#include "plugin/host_api.h"

namespace kiln::plugin {
namespace {

// Every field of a non-graph attribute.
Attribute CopyAttribute(const Attribute& a) {
  Attribute c;
  c.name = a.name;
  c.kind = a.kind;
  c.kind_declared = a.kind_declared;
  c.ref_attr_name = a.ref_attr_name;
  c.doc_string = a.doc_string;
  c.f = a.f;
  c.i = a.i;
  c.s = a.s;
  c.t = a.t;
  c.sparse_tensor = a.sparse_tensor;
  c.tp = a.tp;
  c.floats = a.floats;
  c.ints = a.ints;
  c.strings = a.strings;
  c.tensors = a.tensors;
  c.sparse_tensors = a.sparse_tensors;
  c.type_protos = a.type_protos;
  return c;
}

}  // namespace

void InlineSubgraph(Node& node, size_t index) {
  std::vector<Graph*> subs = node.subgraphs();
  if (index >= subs.size())
    throw std::out_of_range("node '" + node.name() + "' has " + std::to_string(subs.size()) + " subgraphs, not " +
                            std::to_string(index + 1));
  const Graph& sub = *subs[index];
  Graph& g = *node.graph();
  if (!sub.inputs().empty())
    throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "subgraph '" + sub.name() + "' has inputs; only a body without "
                                                         "inputs (an If branch) can be inlined");
  if (sub.outputs().size() < node.num_outputs())
    throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "subgraph '" + sub.name() + "' has fewer outputs than node '" +
                                                         node.name() + "'");
  if (!sub.sparse_initializers().empty())
    throw SlotError(KILN_STATUS_UNSUPPORTED, "subgraph '" + sub.name() + "' holds sparse initializers");
  std::vector<Node*> order = TopologicalOrderOrThrow(sub, "subgraph '" + sub.name() + "'");
  for (const Node* n : order)
    if (n->has_subgraphs())
      throw SlotError(KILN_STATUS_UNSUPPORTED, "subgraph '" + sub.name() + "' holds nested subgraphs (node '" +
                                                   n->name() + "'), which cannot be inlined yet");
  std::unordered_map<const Value*, Value*> mapped;  // subgraph value -> its copy in g
  auto map_value = [&](Value* v) -> Value* {
    if (v == nullptr) return nullptr;
    auto it = mapped.find(v);
    return it != mapped.end() ? it->second : v;  // an outer value is read directly
  };
  for (Value* init : sub.initializers()) {
    Tensor t = *init->initializer();
    t.set_name(init->name());
    mapped[init] = g.AddInitializer(std::move(t));
  }
  for (const Node* n : order) {
    std::vector<Value*> ins;
    for (Value* in : n->inputs()) ins.push_back(map_value(in));
    Node* copy = g.AddNode(n->op_type(), std::move(ins), n->num_outputs(), n->name(), n->domain());
    copy->set_doc_string(n->doc_string());
    for (const Attribute& a : n->attributes()) copy->SetAttribute(CopyAttribute(a));
    for (size_t k = 0; k < n->num_outputs(); ++k) {
      Value* out = n->output(k);
      if (out == nullptr) continue;
      copy->output(k)->SetType(out->type());
      mapped[out] = copy->output(k);
    }
  }
  for (size_t k = 0; k < node.num_outputs(); ++k) {
    Value* out = node.output(k);
    if (out == nullptr || !out->has_uses()) continue;
    Value* repl = map_value(sub.outputs()[k]);
    // A graph output keeps its name: the value replacing it takes the name, or (when it cannot: a value of an outer
    // graph, or one that is already an input or output) an Identity of it does.
    if (out->is_graph_output() && (repl->producer() == nullptr || repl->graph() != &g || repl->is_graph_output() ||
                                   repl->is_graph_input())) {
      Node* copy = g.AddNode("Identity", {repl}, 1, node.name());
      copy->output(0)->SetType(out->type());
      repl = copy->output(0);
    }
    g.ReplaceValue(out, repl);
  }
  CallFrame& frame = CallFrame::Current();
  for (Value* in : node.inputs())
    if (in) frame.NoteReleased(in);
  g.RemoveNode(&node);
}

}  // namespace kiln::plugin
