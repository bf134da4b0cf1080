#include "ir/dims.h"

#include <ostream>

namespace kiln {

std::ostream& operator<<(std::ostream& os, const Dims& d) {
  os << '[';
  for (size_t i = 0; i < d.size(); ++i) os << (i ? "," : "") << d[i];
  return os << ']';
}

}  // namespace kiln
