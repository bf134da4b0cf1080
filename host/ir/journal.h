// An undo log for graph mutations. While a transaction is open every IR mutation records how to undo itself,
// and nodes and values removed meanwhile are kept alive, so a failed pass call can be rolled back to a graph
// that is exactly as it was. Outside a transaction mutations cost nothing extra.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>

#include "ir/segmented_list.h"
#include "ir/undo_step.h"

namespace kiln {

class Journal {
 public:
  bool active() const { return active_; }
  void Begin() {
    active_ = true;
    Clear();
  }
  void Record(UndoStep undo) {
    if (!active_) return;
    undo_.push_back(std::move(undo));
  }
  // Records that `slot` (a pointer member) is about to change: a rollback gives it back its value now. Consecutive
  // records of one pointer type share one undo step, in words: a slot that held null takes one (its address, tagged
  // 1), any other two (the old pointer, then the address tagged 2), where a step of its own took 32 bytes. Shape
  // inference sets the type of every value of a graph, most of them untyped before (the 1M-node chain: 1.67M types,
  // 53 MB as steps, 27 MB as pairs, 13 MB so).
  template <typename T>
  void RecordPointer(T*& slot) {
    if (!active_) return;
    static const char kind = 0;  // one address per T
    if (run_kind_ != &kind || size() != run_end_) {
      auto run = std::make_shared<SegmentedList<uintptr_t>>();
      Record([run] {
        T** old_of = nullptr;  // a slot whose old pointer is the next word: it was recorded just before
        run->ForEachReverse([&](uintptr_t word) {
          if (old_of != nullptr) {
            *std::exchange(old_of, nullptr) = reinterpret_cast<T*>(word);
          } else if (word & 1) {
            *reinterpret_cast<T**>(word & ~uintptr_t{3}) = nullptr;
          } else {
            old_of = reinterpret_cast<T**>(word & ~uintptr_t{3});
          }
        });
      });
      run_ = run.get();
      run_kind_ = &kind;
      run_end_ = size();
    }
    static_assert(alignof(T*) >= 4, "a slot's address keeps two low bits for its tag");
    auto* words = static_cast<SegmentedList<uintptr_t>*>(run_);
    const auto at = reinterpret_cast<uintptr_t>(&slot);
    if (slot == nullptr) {
      words->push_back(at | 1);
    } else {
      words->push_back(reinterpret_cast<uintptr_t>(slot));
      words->push_back(at | 2);
    }
  }
  // Appends the steps of `later` (a journal of changes made after this one's) to this one's, so that a rollback
  // of this journal undoes both; `later` is left empty. One journal holding the steps of many costs only the
  // steps, where each journal kept on its own costs its first chunk too.
  void Absorb(Journal&& later) {
    later.undo_.ForEach([&](UndoStep& undo) { undo_.push_back(std::move(undo)); });
    later.Clear();
    run_ = nullptr;  // a later RecordPointer starts a run of its own
    run_kind_ = nullptr;
    run_end_ = 0;
  }
  // Keeps the changes.
  void Commit() {
    active_ = false;
    Clear();
  }
  // Undoes every change since Begin, newest first.
  void Rollback() {
    ++RollbackCount();
    active_ = false;  // undo steps must not record themselves
    undo_.ForEachReverse([](UndoStep& undo) { undo(); });
    Clear();
  }
  size_t size() const { return undo_.size(); }
  // How many rollbacks any journal of the process made so far: caches of derived facts (inferred shapes) start
  // over after one. Process-wide because journals are swapped in and out of a model while passes run.
  static uint64_t& RollbackCount() {
    static uint64_t count = 0;
    return count;
  }

 private:
  bool active_ = false;
  // Chunks that never move (segmented_list.h): a pass that rewrites a large graph records millions of steps, and a
  // vector's doubling would hold the old and the new array at once; and most journals (every plugin pass call runs
  // in one of its own) record a few steps or none, which take no memory before the first.
  SegmentedList<UndoStep> undo_;
  // The run RecordPointer extends: its entries (a list of words for the pointer type whose tag is run_kind_),
  // extended only while its step is still the last one (undo_ holds run_end_ steps).
  void* run_ = nullptr;
  const void* run_kind_ = nullptr;
  size_t run_end_ = 0;
  void Clear() {
    undo_.clear();
    run_ = nullptr;
    run_kind_ = nullptr;
    run_end_ = 0;
  }
};

}  // namespace kiln
