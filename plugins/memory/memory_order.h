// A memory-aware topological order of a main graph's nodes.
//
// List scheduling: among the nodes whose producers have all run, take the one that adds the fewest live bytes:
// the bytes of its outputs less the bytes of the inputs it reads for the last time (inputs of the graph, constants
// and graph outputs free nothing); ties keep the current order. A node that holds subgraphs counts what it reads
// inside them as its own inputs, so it runs after their producers: the result is a topological order in the
// host's sense, and since ONNX nodes have no side effects, any topological order computes the same outputs.
// `bytes` gives a value's size (0 for one that is unplanned). With `depth_first`, a ready node that reads an output
// of the node run last goes before the others (then the fewest bytes added): it finishes a chain (SiLU's
// Sigmoid and Mul right after the gate projection) before starting the next large value, which the byte count
// alone, looking one node ahead, does not see.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <cstdint>
#include <functional>
#include <vector>

namespace kiln::memory {

std::vector<sdk::Node> MemoryAwareOrder(const std::vector<sdk::Node>& current,
                                        const std::function<uint64_t(const sdk::Value&)>& bytes,
                                        bool depth_first);

}  // namespace kiln::memory
