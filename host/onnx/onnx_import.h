// ONNX -> Kiln IR. Every field of the model is carried over so that exporting without passes reproduces it:
// nodes and their order, attributes of every kind, initializers bit for bit, opset imports, value infos,
// metadata, doc strings, functions and unknown domains. Nodes may appear out of topological order; inputs are
// resolved after every value of every scope is declared. External data is memory-mapped, and only from files
// inside the model's directory.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "ir/model.h"

namespace onnx {
class ModelProto;
}

namespace kiln {

// Reads and imports a model file. Throws kiln::Error (invalid model, exit code 2) with the file name and what
// is wrong: a missing file, a directory, an empty or truncated file, bytes that are not ONNX, a node reading an
// undefined value, a cyclic graph, tensor data that disagrees with its dims, an external-data path that leaves
// the model's directory.
std::unique_ptr<Model> LoadModel(const std::string& path);

// Imports serialized model bytes; `name` is used in messages and `base_dir` resolves external data ("" refuses
// external data).
std::unique_ptr<Model> LoadModelFromBytes(std::string_view bytes, const std::string& name,
                                          const std::string& base_dir);

// Imports a parsed model, taking the bytes of its tensors without copying them.
std::unique_ptr<Model> ImportModel(onnx::ModelProto&& proto, const std::string& name, const std::string& base_dir);

}  // namespace kiln
