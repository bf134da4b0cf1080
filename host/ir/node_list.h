// NodeList: a graph's nodes in storage order (Graph::nodes).
#pragma once

#include <cstddef>
#include <iterator>
#include <memory>
#include <vector>

namespace kiln {

class Node;

// A node as NodeList hands it out: its address, reading like the owner it stands for (->, *, get()).
class NodeRef {
 public:
  explicit NodeRef(Node* n = nullptr) : n_(n) {}
  Node* get() const { return n_; }
  Node* operator->() const { return n_; }
  Node& operator*() const { return *n_; }
  explicit operator bool() const { return n_ != nullptr; }

 private:
  Node* n_;
};

// The nodes' owners in a vector, with a hole (null) where a node was removed, read through iterators that skip the
// holes. It replaces a std::list, whose 32-byte link per node the 1M-node chain paid a million times, and keeps
// what loops over a graph's nodes rely on: a node added while a loop runs is met by that loop (an iterator holds a
// position, not an address, so the vector may move under it, and the end is wherever the vector ends then); a node
// removed meanwhile is not, the loop's own node included; and what a loop's body holds of its node stays valid
// while the body adds nodes (the iterator keeps the NodeRef that `*it` refers to, as a list kept its element). The
// holes close up only between passes (Graph::CompactNodes, from Model::CollectGarbage), when no loop runs. For
// range-for loops: `*it` refers into the iterator itself.
class NodeList {
 public:
  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = NodeRef;
    using difference_type = std::ptrdiff_t;
    using pointer = const NodeRef*;
    using reference = const NodeRef&;

    iterator() = default;
    reference operator*() const { return current_; }
    pointer operator->() const { return &current_; }
    iterator& operator++() {
      ++at_;
      SkipHoles();
      return *this;
    }
    iterator operator++(int) {
      iterator old = *this;
      ++*this;
      return old;
    }
    bool operator==(const iterator& o) const { return AtEnd() ? o.AtEnd() : !o.AtEnd() && at_ == o.at_; }

   private:
    friend class NodeList;
    iterator(const std::vector<std::unique_ptr<Node>>* slots, size_t at) : slots_(slots), at_(at) { SkipHoles(); }
    bool AtEnd() const { return slots_ == nullptr || at_ >= slots_->size(); }
    void SkipHoles() {
      while (at_ < slots_->size() && !(*slots_)[at_]) ++at_;
      current_ = NodeRef(at_ < slots_->size() ? (*slots_)[at_].get() : nullptr);
    }
    const std::vector<std::unique_ptr<Node>>* slots_ = nullptr;
    size_t at_ = 0;
    NodeRef current_;
  };
  using const_iterator = iterator;

  iterator begin() const { return iterator(&slots_, 0); }
  iterator end() const { return iterator(&slots_, static_cast<size_t>(-1)); }
  size_t size() const { return slots_.size() - holes_; }
  bool empty() const { return size() == 0; }
  // The first and the last node; the list must not be empty.
  NodeRef front() const { return *begin(); }
  NodeRef back() const {
    size_t i = slots_.size();
    while (!slots_[i - 1]) --i;
    return NodeRef(slots_[i - 1].get());
  }

 private:
  friend class Graph;
  std::vector<std::unique_ptr<Node>> slots_;
  size_t holes_ = 0;
};

static_assert(std::input_iterator<NodeList::iterator>);

}  // namespace kiln
