// The value and node names of one naming scope tree: the model's main graph with its subgraphs, or one function
// body with its subgraphs (ONNX gives each function body a namespace of its own). Names are counted, so a name
// frees up when the last value holding it goes, and a fresh name is one no value of the tree holds. The set is
// built on first use (a compile that makes no new names never pays for it) and kept up to date from then on.
//
// A name is counted by a 64-bit hash of its text, not by a copy of it: the set of a 1M-node graph held a copy of
// each of its 2.7M names (about 100 bytes each with the table's node), built by the first pass that needs a fresh
// name. Two names of one hash count as one name held twice, so a free name may read as taken (a fresh name then
// skips it; a plugin asking for that exact name is refused), never a taken one as free; with n names held, a free
// name reads as taken with probability about n / 2^64.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace kiln {

class NameSet {
 public:
  // `collect` lists every name of the tree; it is called once, when the set is first needed.
  explicit NameSet(std::function<void(const std::function<void(std::string_view)>&)> collect)
      : collect_(std::move(collect)) {}

  bool Contains(std::string_view name);
  // A name made from `hint` that no value holds (hint itself when it is free). It is reserved at once: the value
  // that then takes it (Note) consumes the reservation.
  std::string Fresh(std::string_view hint);
  // A value of the tree took `name`.
  void Note(std::string_view name);
  // A value holding `name` went.
  void Forget(std::string_view name);

 private:
  void Build();

  std::function<void(const std::function<void(std::string_view)>&)> collect_;
  static uint64_t Key(std::string_view name) { return std::hash<std::string_view>()(name); }

  std::unordered_map<uint64_t, uint32_t> counts_;  // by Key
  std::unordered_set<std::string> reserved_;  // given out by Fresh, not yet taken by a value
  uint64_t fresh_counter_ = 0;
  bool built_ = false;
};

}  // namespace kiln
