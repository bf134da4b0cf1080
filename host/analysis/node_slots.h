// Each node's slot in a list of them (a topological order, a dominator tree's nodes), for the graph analyses: an
// open-addressing table (linear probing) made once from the list and only read after, the keys and the slots in
// two arrays. It replaced std::unordered_map<const Node*, int64_t>, whose node per entry (24 bytes besides its
// bucket) took 44 MB of a 1M-node graph's analyses, and an allocation per node each time the order was made again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kiln {

class Node;

class NodeSlots {
 public:
  // Slot i for nodes[i] (each node once), in place of whatever was held.
  void Assign(const std::vector<Node*>& nodes);
  // n's slot; -1 when it has none.
  int32_t Find(const Node* n) const;
  // n's slot; InternalError naming `what` when it has none.
  int32_t At(const Node* n, const char* what) const;
  bool Contains(const Node* n) const { return Find(n) >= 0; }
  size_t size() const { return size_; }

 private:
  size_t Home(const Node* n) const;

  std::vector<const Node*> keys_;  // a power of two of them, at most three quarters used (null: empty)
  std::vector<int32_t> slots_;
  unsigned shift_ = 0;             // 64 - log2(capacity)
  size_t size_ = 0;
};

}  // namespace kiln
