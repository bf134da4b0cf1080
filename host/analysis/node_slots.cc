#include "analysis/node_slots.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <string>

#include "ir/node.h"
#include "support/error.h"

namespace kiln {

size_t NodeSlots::Home(const Node* n) const {
  // Fibonacci hashing of the address: its high bits, which every bit of the address reaches.
  return static_cast<size_t>((reinterpret_cast<uintptr_t>(n) * 0x9E3779B97F4A7C15ull) >> shift_);
}

void NodeSlots::Assign(const std::vector<Node*>& nodes) {
  if (nodes.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max()))
    throw InternalError("NodeSlots: " + std::to_string(nodes.size()) + " nodes are more than a slot can number");
  size_ = nodes.size();
  keys_.clear();
  keys_.shrink_to_fit();
  uint64_t low = std::numeric_limits<uint64_t>::max(), high = 0;
  bool one_graph = true;
  for (const Node* n : nodes) {
    low = std::min(low, n->id());
    high = std::max(high, n->id());
    one_graph = one_graph && n->graph() == nodes.front()->graph();
  }
  by_id_ = !nodes.empty() && one_graph && high - low < 2 * static_cast<uint64_t>(nodes.size()) + 64;
  if (by_id_) {
    first_id_ = low;
    graph_ = nodes.front()->graph();
    slots_.assign(high - low + 1, -1);
    for (size_t i = 0; i < nodes.size(); ++i) {
      int32_t& slot = slots_[nodes[i]->id() - low];
      if (slot < 0) slot = static_cast<int32_t>(i);  // listed twice: the first slot stays
    }
    return;
  }
  const size_t capacity = std::bit_ceil(std::max<size_t>(16, (nodes.size() * 4 + 2) / 3));
  keys_.assign(capacity, nullptr);
  slots_.assign(capacity, -1);
  shift_ = 64 - static_cast<unsigned>(std::countr_zero(capacity));
  const size_t mask = capacity - 1;
  for (size_t i = 0; i < nodes.size(); ++i) {
    size_t at = Home(nodes[i]);
    while (keys_[at] != nullptr && keys_[at] != nodes[i]) at = (at + 1) & mask;
    if (keys_[at] != nullptr) continue;  // listed twice: the first slot stays
    keys_[at] = nodes[i];
    slots_[at] = static_cast<int32_t>(i);
  }
}

int32_t NodeSlots::Find(const Node* n) const {
  if (n == nullptr) return -1;
  if (by_id_) {
    // An id is the model's: a node of another graph may hold a number this graph's nodes span.
    const uint64_t at = n->id() - first_id_;  // wraps for an id below the first
    return at < slots_.size() && n->graph() == graph_ ? slots_[at] : -1;
  }
  if (keys_.empty()) return -1;
  const size_t mask = keys_.size() - 1;
  for (size_t at = Home(n);; at = (at + 1) & mask) {
    if (keys_[at] == n) return slots_[at];
    if (keys_[at] == nullptr) return -1;
  }
}

int32_t NodeSlots::At(const Node* n, const char* what) const {
  const int32_t slot = Find(n);
  if (slot < 0) throw InternalError(std::string(what) + ": a node the analysis does not know");
  return slot;
}

}  // namespace kiln
