// OwnerList: the nodes or the values a graph owns, in storage order (Graph::nodes, Graph::values).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <vector>

namespace kiln {

class Node;

// The owners in a vector, with a hole (null) where one was removed, read through iterators that skip the holes;
// each element keeps its place in `index_` (Node and Value make this a friend). It replaces a std::list, whose
// 32-byte link per element the 1M-node chain paid 2.67 million times, and keeps what loops over a graph's nodes
// rely on: an element added while a loop runs is met by that loop (an iterator holds a position, not an address,
// so the vector may move under it, and the end is wherever the vector ends then); one removed meanwhile is not,
// the loop's own included; and what a loop's body holds of its element stays valid while the body adds more (the
// iterator keeps the Ref that `*it` refers to, as a list kept its element). Removed elements go to the model (Take)
// and come back last on a rollback (Append), as the list's splice put them. The holes close up only between passes
// (Compact, from Model::CollectGarbage), when no loop runs.
template <typename T>
class OwnerList {
 public:
  // An element as the list hands it out: its address, reading like the owner it stands for (->, *, get()).
  class Ref {
   public:
    explicit Ref(T* x = nullptr) : x_(x) {}
    T* get() const { return x_; }
    T* operator->() const { return x_; }
    T& operator*() const { return *x_; }
    explicit operator bool() const { return x_ != nullptr; }

   private:
    T* x_;
  };

  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Ref;
    using difference_type = std::ptrdiff_t;
    using pointer = const Ref*;
    using reference = const Ref&;

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
    friend class OwnerList;
    iterator(const std::vector<std::unique_ptr<T>>* slots, size_t at) : slots_(slots), at_(at) { SkipHoles(); }
    bool AtEnd() const { return slots_ == nullptr || at_ >= slots_->size(); }
    void SkipHoles() {
      while (at_ < slots_->size() && !(*slots_)[at_]) ++at_;
      current_ = Ref(at_ < slots_->size() ? (*slots_)[at_].get() : nullptr);
    }
    const std::vector<std::unique_ptr<T>>* slots_ = nullptr;
    size_t at_ = 0;
    Ref current_;
  };
  using const_iterator = iterator;

  iterator begin() const { return iterator(&slots_, 0); }
  iterator end() const { return iterator(&slots_, static_cast<size_t>(-1)); }
  size_t size() const { return slots_.size() - holes_; }
  bool empty() const { return size() == 0; }
  // The first and the last element; the list must not be empty.
  Ref front() const { return *begin(); }
  Ref back() const {
    size_t i = slots_.size();
    while (!slots_[i - 1]) --i;
    return Ref(slots_[i - 1].get());
  }

  // Adds `x` last.
  void Append(std::unique_ptr<T> x) {
    x->index_ = static_cast<uint32_t>(slots_.size());
    slots_.push_back(std::move(x));
  }
  // Takes `x`, one of this list's, out, leaving a hole.
  std::unique_ptr<T> Take(const T* x) {
    ++holes_;
    return std::move(slots_[x->index_]);
  }
  // Closes up the holes, keeping the order.
  void Compact() {
    if (holes_ == 0) return;
    std::erase(slots_, nullptr);
    holes_ = 0;
    for (size_t i = 0; i < slots_.size(); ++i) slots_[i]->index_ = static_cast<uint32_t>(i);
  }

 private:
  std::vector<std::unique_ptr<T>> slots_;
  size_t holes_ = 0;
};

using NodeList = OwnerList<Node>;
static_assert(std::input_iterator<NodeList::iterator>);

}  // namespace kiln
