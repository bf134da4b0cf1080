// The value and node names of one naming scope tree: the model's main graph with its subgraphs, or one function
// body with its subgraphs (ONNX gives each function body a namespace of its own). Names are counted, so a name
// frees up when the last value holding it goes, and a fresh name is one no value of the tree holds. The set is
// built on first use (a compile that makes no new names never pays for it) and kept up to date from then on.
//
// A name is counted by a 64-bit hash of its text (12 bytes a slot of an open-addressing table), not by a copy of
// it: the set of a 1M-node graph held a copy of each of its 2.7M names (about 100 bytes each with the table's
// node), built by the first pass that needs a fresh name. Two names of one hash count as one name held twice, so a
// free name may read as taken (a fresh name then skips it; a plugin asking for that exact name is refused), never a
// taken one as free; with n names held, a free name reads as taken with probability about n / 2^64.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include <unordered_set>

namespace kiln {

class NameSet {
 public:
  using Collect = std::function<void(const std::function<void(std::string_view)>&)>;
  // Whether a value of the tree holds `name`, answered without the set where the tree allows (a graph with no
  // subgraphs has its values by name already); nullopt where it does not.
  using Holds = std::function<std::optional<bool>(std::string_view)>;

  // `collect` lists every name of the tree; it is called once, when the set is first needed. Until then, Contains
  // and Fresh ask `holds` (when given), and build the set only when it answers nullopt: the tree of a model
  // without subgraphs never needs it (the 1M-node foldchain's 1.25M names: 24 MB and a walk of every value).
  explicit NameSet(Collect collect, Holds holds = nullptr) : collect_(std::move(collect)), holds_(std::move(holds)) {}

  bool Contains(std::string_view name);
  // A name made from `hint` that no value holds (hint itself when it is free). It is reserved at once: the value
  // that then takes it (Note) consumes the reservation.
  std::string Fresh(std::string_view hint);
  // A value of the tree took `name`.
  void Note(std::string_view name);
  // A value holding `name` went.
  void Forget(std::string_view name);

 private:
  // Whether a holder or a reservation has `name`: through holds_ while the set is not built and holds_ answers,
  // else through the set, built first.
  bool Taken(std::string_view name);
  void Build();

  Collect collect_;
  Holds holds_;
  static uint64_t Key(std::string_view name) { return std::hash<std::string_view>()(name); }

  // Counts by Key: open addressing with linear probing over two parallel arrays (key 0: an empty slot; a name whose
  // key is 0 counts under 1), up to seven eighths used. 12 bytes a slot where an unordered_map took some 50 bytes a
  // name (a 24-byte node rounded to 32, and its bucket): the generated 1M-node foldchain's 1.25M names, 61 -> 24 MB.
  class Counts {
   public:
    // The count of `key`, or null.
    uint32_t* Find(uint64_t key);
    // The count of `key`, made 0 when it had none.
    uint32_t& operator[](uint64_t key);
    void Erase(uint64_t key);

   private:
    static uint64_t Stored(uint64_t key) { return key == 0 ? 1 : key; }
    size_t Home(uint64_t stored) const { return static_cast<size_t>((stored * 0x9e3779b97f4a7c15ULL) >> shift_); }
    void Rehash(size_t capacity);
    std::vector<uint64_t> keys_;
    std::vector<uint32_t> counts_;
    size_t size_ = 0;
    int shift_ = 64;
  };
  Counts counts_;
  std::unordered_set<std::string> reserved_;  // given out by Fresh, not yet taken by a value
  uint64_t fresh_counter_ = 0;
  bool built_ = false;
};

}  // namespace kiln
