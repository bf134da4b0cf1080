// A structural hash of a graph that ignores value and node names: two graphs that differ only in the names a
// pass made up hash the same. The driver uses it to see a graph state come back (a rewrite cycle).
#pragma once

#include <cstdint>

namespace kiln {

class Graph;

uint64_t StructuralFingerprint(const Graph& g);

}  // namespace kiln
