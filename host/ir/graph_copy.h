// Deep copies of IR pieces: an attribute with its subgraphs, a whole graph, and a list of nodes into another graph.
// Copies share initializer data (tensors are held by shared buffers) and never copy bytes. New values take the
// source's names where the destination's naming scope has them free (Graph::FreshName), node names are kept.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "ir/attribute.h"

namespace kiln {

class Graph;
class Node;
class Value;

// Source value -> its copy (or the value that stands for it in the destination).
using ValueMap = std::unordered_map<const Value*, Value*>;

class AttributeBinder;

// Copies `a` for node `owner` (already in its graph, which becomes the parent of copied subgraphs). A value a
// subgraph reads from outside itself is taken from `map`, else kept when it is visible from the new place, else
// looked up by name there; InternalError when none of these finds it. `bind` (may be null) applies to the nodes
// of copied subgraphs too.
Attribute CopyAttribute(const Attribute& a, Node* owner, const ValueMap& map, const AttributeBinder* bind = nullptr);

// What a copied node's attribute becomes: the attribute to set (built with CopyAttribute), or nullopt to leave it
// out. Used to bind a function's attribute references to a call's values (Inline) and to turn attributes into
// references (Outline).
class AttributeBinder {
 public:
  virtual ~AttributeBinder() = default;
  virtual std::optional<Attribute> Bind(const Node& source, const Attribute& a, Node* owner, const ValueMap& map) const = 0;
};

// Copies `nodes` (topologically ordered, all of one graph) into `dst`, in that order. Every input must be in
// `map` (a value of an earlier node in the list is added as it is copied); an input not there is an InternalError.
// Output types, doc strings and annotations come along. Returns the copies in order.
std::vector<Node*> CopyNodes(const std::vector<Node*>& nodes, Graph& dst, ValueMap& map,
                             const AttributeBinder* bind = nullptr);

// A copy of `src` (inputs, initializers, nodes, outputs, value infos) as a new subgraph of `parent` held by
// `owner` (both null: a parentless graph of src's model).
std::unique_ptr<Graph> CopyGraph(const Graph& src, Graph* parent, Node* owner, const ValueMap& outer,
                                 const AttributeBinder* bind = nullptr);

}  // namespace kiln
