// Kiln IR -> ONNX. Nodes are written in topological order (stable: a sorted input keeps its order), tensors
// in the form they were read (raw bytes, typed fields or external data) unless the options move them to an
// external-data file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ir/model.h"

namespace onnx {
class ModelProto;
}

namespace kiln {

class AtomicFile;

struct ExportOptions {
  // Initializers of at least this many bytes go to an external-data file beside the model. Unset: tensors that
  // were external when read stay external, the rest are written inline.
  std::optional<uint64_t> external_data_threshold;
};

// Builds the ModelProto. External tensors are not written here: their proto carries the location and offset
// that WriteModel assigns; call ExportModelProto alone only for models without external data (tests, info).
onnx::ModelProto ExportModelProto(const Model& model);

// Writes the model (and its external-data file, if any) to `path` through temporary files renamed into place, so
// a failure never leaves a partial file. Throws kiln::Error on failure.
void WriteModel(const Model& model, const std::string& path, const ExportOptions& options = {});
// The same into an output file opened by the caller (to fail early on an unwritable path, or to prefill it);
// commits it on success.
void WriteModel(const Model& model, AtomicFile& out, const ExportOptions& options = {});
// The model serialized in memory with every tensor inline: the bytes WriteModel writes when no tensor is external,
// built the same way (raw weights appended from their buffers, never first copied into protos). `name` appears in
// messages. Throws kiln::Error (invalid model) past protobuf's 2 GB limit.
std::string SerializeModel(const Model& model, const std::string& name);

}  // namespace kiln
