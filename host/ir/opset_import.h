// One entry of an opset_import list (a model's or a function's): a domain ("" is ai.onnx) and its version.
#pragma once

#include <cstdint>
#include <string>

namespace kiln {

struct OpsetImport {
  std::string domain;
  int64_t version = 0;
  bool operator==(const OpsetImport&) const = default;
};

}  // namespace kiln
