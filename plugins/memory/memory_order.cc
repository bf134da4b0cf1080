// The memory-aware order; see memory_order.h.
#include "memory_order.h"

#include <unordered_map>

namespace kiln::memory {
namespace {

struct NodeInfo {
  std::vector<size_t> inputs;      // distinct values (indices) it reads, inside its subgraphs too
  std::vector<size_t> dependents;  // nodes reading its outputs (with repeats)
  int64_t waiting = 0;             // producers not run yet (with repeats)
  int64_t out_bytes = 0;
};

struct ValueInfo {
  int64_t bytes = 0;
  int64_t readers = 0;  // distinct nodes of the graph reading it, not run yet
  bool frees = false;   // a node's output that is no graph output: its bytes go when its last reader has run
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
  std::unordered_map<KilnNode*, size_t> position;
  for (size_t i = 0; i < current.size(); ++i) position[current[i].raw()] = i;
  std::vector<NodeInfo> nodes(current.size());
  std::vector<ValueInfo> values;
  std::unordered_map<KilnValue*, size_t> value_index;
  auto index_of = [&](const sdk::Value& v) {
    auto [it, fresh] = value_index.emplace(v.raw(), values.size());
    if (fresh) {
      ValueInfo info;
      sdk::Node producer = v.Producer();
      auto p = producer ? position.find(producer.raw()) : position.end();
      info.frees = p != position.end() && !v.IsGraphOutput() && !v.IsConstant();
      info.bytes = static_cast<int64_t>(bytes(v));
      values.push_back(info);
    }
    return it->second;
  };
  for (size_t i = 0; i < current.size(); ++i) {
    for (const sdk::Value& out : current[i].Outputs())
      if (out) nodes[i].out_bytes += static_cast<int64_t>(bytes(out));
    std::vector<sdk::Value> reads;
    CollectReads(current[i], reads);
    for (const sdk::Value& v : reads) {
      const size_t vi = index_of(v);
      bool seen = false;
      for (size_t x : nodes[i].inputs) seen = seen || x == vi;
      if (seen) continue;
      nodes[i].inputs.push_back(vi);
      ++values[vi].readers;
      sdk::Node producer = v.Producer();
      auto p = producer ? position.find(producer.raw()) : position.end();
      if (p == position.end() || p->second == i) continue;
      nodes[p->second].dependents.push_back(i);
      ++nodes[i].waiting;
    }
  }

  std::vector<size_t> ready;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].waiting == 0) ready.push_back(i);
  std::vector<sdk::Node> order;
  order.reserve(current.size());
  std::vector<char> follows(current.size(), 0);  // reads an output of the node run last
  while (!ready.empty()) {
    size_t best = 0;
    int64_t best_delta = 0;
    bool best_follows = false;
    for (size_t r = 0; r < ready.size(); ++r) {
      const NodeInfo& n = nodes[ready[r]];
      int64_t delta = n.out_bytes;
      for (size_t vi : n.inputs)
        if (values[vi].frees && values[vi].readers == 1) delta -= values[vi].bytes;
      const bool f = depth_first && follows[ready[r]];
      const bool better = f != best_follows ? f
                          : delta != best_delta ? delta < best_delta
                                                : ready[r] < ready[best];
      if (r == 0 || better) best = r, best_delta = delta, best_follows = f;
    }
    const size_t chosen = ready[best];
    for (size_t r : ready) follows[r] = 0;
    for (size_t d : nodes[chosen].dependents) follows[d] = 1;
    ready[best] = ready.back();
    ready.pop_back();
    order.push_back(current[chosen]);
    for (size_t vi : nodes[chosen].inputs) --values[vi].readers;
    for (size_t d : nodes[chosen].dependents)
      if (--nodes[d].waiting == 0) ready.push_back(d);
  }
  if (order.size() != current.size()) return current;  // a cycle: keep what the host gave
  return order;
}

}  // namespace kiln::memory
