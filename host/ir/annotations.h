// Setting one annotation in a key/value map, journaled (shared by Node and Value).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "ir/journal.h"

namespace kiln {

inline void SetAnnotationIn(std::map<std::string, std::string>& m, Journal& j, const std::string& key,
                            const std::optional<std::string>& value) {
  auto it = m.find(key);
  std::optional<std::string> old = it == m.end() ? std::nullopt : std::optional<std::string>(it->second);
  if (old == value) return;
  if (value) m[key] = *value;
  else m.erase(it);
  if (j.active()) j.Record([&m, key, old] {
      if (old) m[key] = *old;
      else m.erase(key);
    });
}

}  // namespace kiln
