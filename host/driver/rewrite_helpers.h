// Rewrites every pass shares (GE's graph utilities): remove a node while connecting its consumers to chosen
// inputs, replace a node's outputs with constants, and remove what a rewrite left without consumers.
#pragma once

#include <vector>

#include "ir/tensor.h"

namespace kiln {

class Node;
class Value;

// GE's IsolateAndDeleteNode: for each output k, consumers of output k are rewired to input io_map[k] (-1: the
// output must have no consumers), then the node is deleted. Throws kiln::Error (internal) when an output that
// maps to -1 is still used or an index is out of range.
void IsolateAndDeleteNode(Node& node, const std::vector<int>& io_map);

// Turns each used output of `node` into an initializer holding outputs[k] (same name, same consumers), deletes
// the node, and deletes the inputs it leaves without consumers. Returns those values (null for unused outputs).
std::vector<Value*> ReplaceWithConstants(Node& node, std::vector<Tensor> outputs);

// Deletes, recursively, each value in `values` that has no consumer and is not a graph input or output: its
// producer when all of the producer's outputs are unused, or the initializer itself.
void DeleteUnusedInputs(const std::vector<Value*>& values);

}  // namespace kiln
