// NodeTable<T>: a value of type T for each node of a graph, kept by node id (Node::Id), for a pass that marks or
// numbers a whole graph's nodes. Node ids count up from the model's first node, so the ids of a graph's nodes are
// mostly dense: where they span at most four times their count (plus 1024), the table is an array by id, 1 to 8
// bytes a node; a hash set or map by node took 24 to 40 bytes and a bucket (the generated 1M-node chain: 30-40 MB
// of a pass's peak). Otherwise (a branch of a larger graph), and for a node outside that span (of an enclosing
// graph, or made later), a hash map by id serves. A node never set reads as T{}. Part of the SDK; header-only.
//
//   sdk::NodeTable<uint8_t> live(nodes);        // the nodes a pass will set
//   live.Set(n, 1);  if (live.Get(m)) ...
#ifndef KILN_NODE_TABLE_HPP_
#define KILN_NODE_TABLE_HPP_

#include <algorithm>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "kiln/kiln_plugin_handles.hpp"

namespace kiln::sdk {

template <typename T>
class NodeTable {
 public:
  NodeTable() = default;  // empty: every node reads T{} (and a Set goes to the map)
  explicit NodeTable(std::span<const Node> nodes) {
    if (nodes.empty()) return;
    uint64_t lo = nodes.front().Id(), hi = lo;
    for (const Node& n : nodes) {
      const uint64_t id = n.Id();
      lo = std::min(lo, id);
      hi = std::max(hi, id);
    }
    if (hi - lo < 4 * nodes.size() + 1024) {
      base_ = lo;
      dense_.assign(hi - lo + 1, T{});
    }
  }
  T Get(const Node& n) const {
    const uint64_t id = n.Id();
    if (id - base_ < dense_.size()) return dense_[id - base_];
    auto it = sparse_.find(id);
    return it == sparse_.end() ? T{} : it->second;
  }
  void Set(const Node& n, T value) {
    const uint64_t id = n.Id();
    if (id - base_ < dense_.size())
      dense_[id - base_] = value;
    else
      sparse_[id] = value;
  }

 private:
  uint64_t base_ = 0;
  std::vector<T> dense_;
  std::unordered_map<uint64_t, T> sparse_;
};

}  // namespace kiln::sdk

#endif  // KILN_NODE_TABLE_HPP_
