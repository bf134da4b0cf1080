// The op types a node pass can change (KilnPassInfo.op_types, ABI 1.12): the driver calls the pass on nodes of
// these op types only. Held as Node::Intern keeps them, so a node is tested by comparing pointers, and by name
// in the order registered, for listings.
#pragma once

#include <string>
#include <vector>

#include "ir/node.h"

namespace kiln {

class OpTypeSet {
 public:
  explicit OpTypeSet(std::vector<std::string> op_types);
  bool Contains(const Node& n) const;
  size_t size() const { return ids_.size(); }
  const std::vector<std::string>& names() const { return names_; }  // as registered

 private:
  std::vector<std::string> names_;
  std::vector<const std::string*> ids_;  // sorted by address, no repeats
};

}  // namespace kiln
