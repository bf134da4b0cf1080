#include "driver/op_type_set.h"

#include <algorithm>
#include <functional>
#include <utility>

namespace kiln {

OpTypeSet::OpTypeSet(std::vector<std::string> op_types) : names_(std::move(op_types)) {
  for (const std::string& t : names_) ids_.push_back(Node::Intern(t));
  std::sort(ids_.begin(), ids_.end(), std::less<>());
  ids_.erase(std::unique(ids_.begin(), ids_.end()), ids_.end());
}

bool OpTypeSet::Contains(const Node& n) const {
  return std::binary_search(ids_.begin(), ids_.end(), n.op_type_id(), std::less<>());
}

}  // namespace kiln
