// Setting one annotation in a key/value map, journaled, and RareFields, which holds a node's or a value's doc string
// and annotations out of line (shared by Node and Value).
#pragma once

#include <map>
#include <memory>
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

// A node's or a value's doc string and annotations. Most have neither, so they live out of line: 8 bytes where they
// are absent instead of 80 inline (a 100k-node graph has 170k values). Made on the first write and kept as long as
// the owner, so a journaled undo step may hold a reference to the map.
class RareFields {
 public:
  const std::string& doc_string() const { return fields_ ? fields_->doc_string : Empty().doc_string; }
  const std::map<std::string, std::string>& annotations() const {
    return fields_ ? fields_->annotations : Empty().annotations;
  }
  void set_doc_string(std::string d) {
    if (!d.empty() || fields_) Get().doc_string = std::move(d);
  }
  void SetAnnotation(Journal& j, const std::string& key, const std::optional<std::string>& value) {
    if (value || fields_) SetAnnotationIn(Get().annotations, j, key, value);
  }

 private:
  struct Fields {
    std::string doc_string;
    std::map<std::string, std::string> annotations;
  };
  static const Fields& Empty() {
    static const Fields empty;
    return empty;
  }
  Fields& Get() {
    if (!fields_) fields_ = std::make_unique<Fields>();
    return *fields_;
  }
  std::unique_ptr<Fields> fields_;
};

}  // namespace kiln
