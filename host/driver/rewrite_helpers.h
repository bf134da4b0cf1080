// Rewrites every pass shares (GE's graph utilities): remove a node while connecting its consumers to chosen
// inputs, and remove what a rewrite left without consumers.
#pragma once

#include <vector>

namespace kiln {

class Node;
class Value;

// GE's IsolateAndDeleteNode: for each output k, consumers of output k are rewired to input io_map[k] (-1: the
// output must have no consumers; a graph output keeps its name where it can, see Graph::ReplaceValue), then the
// node is deleted, and so are the inputs it leaves without consumers (DeleteUnusedInputs). Throws kiln::Error
// (internal) when an output that maps to -1 is still used or an index is out of range.
void IsolateAndDeleteNode(Node& node, const std::vector<int>& io_map);
// The first half of it: rewires and deletes the node, and returns what the node read (for the caller to clean up).
std::vector<Value*> IsolateAndRemoveNode(Node& node, const std::vector<int>& io_map);

// Deletes, recursively, each value in `values` that has no consumer and is not a graph input or output: its
// producer when all of the producer's outputs are unused, or the initializer itself.
void DeleteUnusedInputs(const std::vector<Value*>& values);

}  // namespace kiln
