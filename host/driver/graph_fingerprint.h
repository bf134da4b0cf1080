// A structural hash of a graph that ignores value and node names: two graphs that differ only in the names a
// pass made up hash the same. The driver uses it to see a graph state come back (a rewrite cycle). A call of a
// model-local function hashes as its function's body (function names are made up too), so outlining and inlining
// change the hash and a group outlined twice under two names hashes the same.
#pragma once

#include <cstdint>

namespace kiln {

class Graph;

class Model;

uint64_t StructuralFingerprint(const Graph& g);
// The main graph's and every function's (in any order).
uint64_t ModelFingerprint(const Model& m);

}  // namespace kiln
