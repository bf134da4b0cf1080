// The memory-aware order; see memory_order.h.
#include "memory_order.h"

#include <kiln/kiln_node_table.hpp>

#include <cstdint>
#include <span>
#include <utility>

#include "grouped_lists.h"

namespace kiln::memory {
namespace {

// An output of one of the nodes being ordered: the only values that take part. A value made elsewhere (a graph
// input, an initializer, a node inside a subgraph) adds no edge and frees nothing.
struct OutputInfo {
  int64_t bytes = 0;
  int32_t readers = 0;  // distinct nodes of the graph reading it, not run yet
  bool frees = false;   // no graph output and no constant: its bytes go when its last reader has run
};

// Every value read by n or inside its subgraphs.
void CollectReads(const sdk::Node& n, std::vector<sdk::Value>& out) {
  for (const sdk::Value& v : n.Inputs())
    if (v) out.push_back(v);
  for (size_t i = 0; i < n.SubgraphCount(); ++i)
    for (const sdk::Node& inner : n.Subgraph(i).Nodes()) CollectReads(inner, out);
}

}  // namespace

std::vector<sdk::Node> MemoryAwareOrder(const std::vector<sdk::Node>& current,
                                        const std::function<uint64_t(const sdk::Value&)>& bytes, bool depth_first) {
  // Node numbers, outputs and edges in 32 bits: no memory holds a graph with four billion of any.
  if (current.size() >= UINT32_MAX) return current;
  const size_t n = current.size();
  sdk::NodeTable<uint32_t> position(current);  // a node's place in `current` plus one; 0 for any other node
  for (size_t i = 0; i < n; ++i) position.Set(current[i], static_cast<uint32_t>(i + 1));

  // Each node's outputs are numbered from first_output[i].
  std::vector<uint32_t> first_output(n + 1, 0);
  std::vector<OutputInfo> outputs;
  std::vector<int64_t> out_bytes(n, 0);
  for (size_t i = 0; i < n; ++i) {
    for (const sdk::Value& out : current[i].Outputs()) {
      OutputInfo info;
      if (out) {
        info.bytes = static_cast<int64_t>(bytes(out));
        info.frees = !out.IsGraphOutput() && !out.IsConstant();
        out_bytes[i] += info.bytes;
      }
      outputs.push_back(info);
    }
    if (outputs.size() >= UINT32_MAX) return current;
    first_output[i + 1] = static_cast<uint32_t>(outputs.size());
  }

  // What each node reads of the others' outputs (distinct), one list per node in one array (a vector per node, and
  // hash maps from handles to numbers, took 64 MB of the 1M-node chain's O3 peak), and the edges producer -> reader
  // (one per distinct output read, so with repeats where a node reads several outputs of one producer).
  GroupedLists<uint32_t> inputs;
  inputs.start.reserve(n + 1);
  std::vector<std::pair<uint32_t, uint32_t>> edges;  // (producer, reader), readers ascending
  std::vector<uint32_t> waiting(n, 0);               // producers not run yet (with repeats)
  std::vector<sdk::Value> reads;
  for (size_t i = 0; i < n; ++i) {
    reads.clear();
    CollectReads(current[i], reads);
    const size_t begin = inputs.items.size();
    for (const sdk::Value& v : reads) {
      size_t slot = 0;
      const sdk::Node producer = v.Producer(&slot);
      const uint32_t p = producer ? position.Get(producer) : 0;
      if (p == 0) continue;
      const uint32_t vi = first_output[p - 1] + static_cast<uint32_t>(slot);
      bool seen = false;
      for (size_t k = begin; k < inputs.items.size(); ++k) seen = seen || inputs.items[k] == vi;
      if (seen) continue;
      inputs.items.push_back(vi);
      ++outputs[vi].readers;
      if (p - 1 == i) continue;
      edges.emplace_back(p - 1, static_cast<uint32_t>(i));
      ++waiting[i];
    }
    inputs.start.push_back(inputs.items.size());
  }
  std::vector<sdk::Value>().swap(reads);

  // The nodes reading each node's outputs, in the order they were met.
  const GroupedLists<uint32_t> dependents = GroupedLists<uint32_t>::Build(n, [&](auto&& emit) {
    for (const auto& [p, r] : edges) emit(p, r);
  });
  std::vector<std::pair<uint32_t, uint32_t>>().swap(edges);

  std::vector<uint32_t> ready;
  for (size_t i = 0; i < n; ++i)
    if (waiting[i] == 0) ready.push_back(static_cast<uint32_t>(i));
  std::vector<sdk::Node> order;
  order.reserve(n);
  std::vector<char> follows(n, 0);  // reads an output of the node run last
  while (!ready.empty()) {
    size_t best = 0;
    int64_t best_delta = 0;
    bool best_follows = false;
    for (size_t r = 0; r < ready.size(); ++r) {
      int64_t delta = out_bytes[ready[r]];
      for (uint32_t vi : inputs[ready[r]])
        if (outputs[vi].frees && outputs[vi].readers == 1) delta -= outputs[vi].bytes;
      const bool f = depth_first && follows[ready[r]];
      const bool better = f != best_follows ? f
                          : delta != best_delta ? delta < best_delta
                                                : ready[r] < ready[best];
      if (r == 0 || better) best = r, best_delta = delta, best_follows = f;
    }
    const uint32_t chosen = ready[best];
    for (uint32_t r : ready) follows[r] = 0;
    for (uint32_t d : dependents[chosen]) follows[d] = 1;
    ready[best] = ready.back();
    ready.pop_back();
    order.push_back(current[chosen]);
    for (uint32_t vi : inputs[chosen]) --outputs[vi].readers;
    for (uint32_t d : dependents[chosen])
      if (--waiting[d] == 0) ready.push_back(d);
  }
  if (order.size() != n) return current;  // a cycle: keep what the host gave
  return order;
}

}  // namespace kiln::memory
