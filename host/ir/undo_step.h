// One undo step of a Journal: a callable run once, on rollback. 32 bytes, as an std::function<void()> is, but with
// 24 of them for the callable in place where std::function keeps 16: most steps capture a graph or node, a value and
// one more word (a slot, an old type, an input), which std::function put in a heap block of its own. A step recorded
// in a transaction lives to its end, and a node pass keeps its calls' steps to the end of its walk (the 1M-node
// foldchain: two million steps). Larger callables go on the heap. Move-only.
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace kiln {

class UndoStep {
 public:
  UndoStep() = default;
  template <typename F>
    requires(!std::is_same_v<std::decay_t<F>, UndoStep> && std::is_invocable_v<std::decay_t<F>&>)
  UndoStep(F&& f) {  // NOLINT: a lambda converts, as it does to std::function
    using Fn = std::decay_t<F>;
    if constexpr (kFitsInPlace<Fn>) {
      ::new (static_cast<void*>(storage_)) Fn(std::forward<F>(f));
      ops_ = &InPlace<Fn>;
    } else {
      *reinterpret_cast<Fn**>(storage_) = new Fn(std::forward<F>(f));
      ops_ = &OnHeap<Fn>;
    }
  }
  UndoStep(UndoStep&& o) noexcept { TakeFrom(o); }
  UndoStep& operator=(UndoStep&& o) noexcept {
    if (this != &o) {
      Reset();
      TakeFrom(o);
    }
    return *this;
  }
  UndoStep(const UndoStep&) = delete;
  UndoStep& operator=(const UndoStep&) = delete;
  ~UndoStep() { Reset(); }

  void operator()() { ops_(Op::kCall, storage_, nullptr); }

 private:
  enum class Op { kCall, kMove, kDestroy };
  using Ops = void (*)(Op op, unsigned char* self, unsigned char* to);
  static constexpr size_t kInPlace = 24;
  template <typename Fn>
  static constexpr bool kFitsInPlace = sizeof(Fn) <= kInPlace && alignof(Fn) <= alignof(void*) &&
                                       std::is_nothrow_move_constructible_v<Fn>;

  template <typename Fn>
  static void InPlace(Op op, unsigned char* self, unsigned char* to) {
    Fn* fn = std::launder(reinterpret_cast<Fn*>(self));
    switch (op) {
      case Op::kCall: (*fn)(); break;
      case Op::kMove: ::new (static_cast<void*>(to)) Fn(std::move(*fn)); fn->~Fn(); break;
      case Op::kDestroy: fn->~Fn(); break;
    }
  }
  template <typename Fn>
  static void OnHeap(Op op, unsigned char* self, unsigned char* to) {
    Fn*& fn = *reinterpret_cast<Fn**>(self);
    switch (op) {
      case Op::kCall: (*fn)(); break;
      case Op::kMove: *reinterpret_cast<Fn**>(to) = fn; break;
      case Op::kDestroy: delete fn; break;
    }
  }

  void TakeFrom(UndoStep& o) noexcept {
    ops_ = std::exchange(o.ops_, nullptr);
    if (ops_) ops_(Op::kMove, o.storage_, storage_);
  }
  void Reset() noexcept {
    if (ops_) std::exchange(ops_, nullptr)(Op::kDestroy, storage_, nullptr);
  }

  alignas(void*) unsigned char storage_[kInPlace];
  Ops ops_ = nullptr;
};

static_assert(sizeof(UndoStep) == 32);

}  // namespace kiln
