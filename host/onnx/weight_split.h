// Loading a model without copying its weights. The top-level initializers' raw_data fields are found by walking
// the protobuf wire format of the memory-mapped file; protobuf parses only the rest (the "skeleton": the model's
// and graph's fields; the initializers' other fields apart, one initializer at a time), and each weight of a page
// or more becomes a window onto the mapping; one whose offset in the file is not aligned for its element type
// (kernels may assume aligned data) is copied, aligned, when first read typed, and written out from the window. A
// weight smaller than a page is copied once instead, into one block shared by all such copies (Buffer::Pack). The
// mapped pages no window covers are then released, so that the file's bytes do not stay in the resident set beside
// their copies. The main graph's nodes are taken out of the skeleton as well: the importer parses them one at a time
// where they lie in the mapping and gives their pages back as it passes them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/buffer.h"

namespace kiln {

struct WeightSplit {
  // The model's bytes without the main graph's initializers and nodes (every other byte as in the file).
  std::string skeleton;
  // The main graph's initializers, in file order: each one's serialized TensorProto less its raw_data field, one
  // after another in `initializer_bytes`, and its raw bytes, or null when it had no raw_data field. Parsed whole in
  // the skeleton, a 1M-node chain's 667k initializers took protobuf's messages beside the IR built from them (the
  // load's peak, 42 MiB above the resident set after it); parsed one at a time, only these bytes are held.
  std::string initializer_bytes;
  std::vector<uint32_t> initializer_ends;  // initializer i is [ends[i-1], ends[i]) of initializer_bytes
  std::vector<std::shared_ptr<const Buffer>> raw;
  // Whether raw[i] is a piece of the one block that every small weight's bytes share (Buffer::Pack): such a weight's
  // bytes live as long as any of them does.
  std::vector<bool> packed;
  std::string_view Initializer(size_t i) const {
    const size_t begin = i == 0 ? 0 : initializer_ends[i - 1];
    return std::string_view(initializer_bytes).substr(begin, initializer_ends[i] - begin);
  }
  // The mapped file, and the main graph's nodes (GraphProto.node) left out of the skeleton: each serialized
  // NodeProto's offset and size in the file, in file order. Parsed whole, a graph's nodes take four to five times
  // their bytes (strings and repeated fields each a heap block), held beside the IR built from them: the load's
  // peak. Parsed one at a time where they lie, nothing of them is copied.
  // Offsets and sizes in 32 bits (the file is under 2 GB, SplitWeights): 8 bytes a node, held while the nodes are
  // built (the 1M-node chain's load peak). The importer frees `raw`, `packed` and `nodes` once it has read them.
  std::shared_ptr<const Buffer> file;
  std::vector<std::pair<uint32_t, uint32_t>> nodes;

  // The node bytes before `offset` are read no more: gives back the mapped pages that hold only them, in steps of
  // a few megabytes (a call per node would be a system call per node). SIZE_MAX gives back the rest.
  void ReleaseNodeBytesBefore(size_t offset);
  // The file's runs of adjacent nodes, [begin, end) in file order, less what ReleaseNodeBytesBefore gave back.
  std::vector<std::pair<size_t, size_t>> node_runs;
  size_t released_runs = 0, released_to = 0;
};

// Splits a mapped model file. Returns nullopt when the bytes are not a well-formed ModelProto at the wire level
// (the caller then parses the whole file and reports protobuf's error) or hold no raw weights worth splitting.
std::optional<WeightSplit> SplitWeights(const std::shared_ptr<const Buffer>& file);

}  // namespace kiln
