// Each node's slot in a list of them (a topological order, a dominator tree's nodes), for the graph analyses, made
// once from the list and only read after. Nodes are numbered in their model (Node::id, never reused), so when the
// listed ids span at most twice as many numbers as there are nodes (a graph as imported, or one a pass added to
// at its end) the slots sit in an array by id, 4 bytes per number; otherwise in an open-addressing table (linear
// probing) of addresses and slots, 12 bytes per entry at most three quarters full. The table replaced an
// std::unordered_map<const Node*, int64_t> (44 MB of a 1M-node graph's analyses); the array takes that graph's
// topological index from 24 MB to 4.
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

  // By id: slots_[id - first_id_] (-1: none), for nodes of graph_ only.
  bool by_id_ = false;
  uint64_t first_id_ = 0;
  const void* graph_ = nullptr;
  // Or by address: a power of two of keys, at most three quarters used (null: empty), and their slots.
  std::vector<const Node*> keys_;
  std::vector<int32_t> slots_;
  unsigned shift_ = 0;             // 64 - log2(capacity)
  size_t size_ = 0;
};

}  // namespace kiln
