// Loading a model without copying its weights. The top-level initializers' raw_data fields are found by walking
// the protobuf wire format of the memory-mapped file; protobuf parses only the rest (the "skeleton": nodes,
// attributes, types, small tensors), and each weight of a page or more becomes a window onto the mapping; one whose
// offset in the file is not aligned for its element type (kernels may assume aligned data) is copied, aligned, when
// first read typed, and written out from the window. A weight smaller than a page is copied once instead, into one
// arena in huge pages shared by all such copies. The mapped pages no window covers are then released, so that the
// file's bytes do not stay in the resident set beside their copies. The main graph's nodes are taken out of the
// skeleton as well, as bytes, for the importer to parse one node at a time.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/buffer.h"

namespace kiln {

struct WeightSplit {
  // The model's bytes without the top-level initializers' raw_data fields (every other byte as in the file).
  std::string skeleton;
  // For each top-level initializer, in file order: its raw bytes, or null when it had no raw_data field.
  std::vector<std::shared_ptr<const Buffer>> raw;
  // The main graph's nodes (GraphProto.node), left out of the skeleton: their serialized NodeProtos one after
  // another, and each one's offset and size there, in file order. Parsed whole, a graph's nodes take four to five
  // times their bytes (strings and repeated fields each a heap block), held beside the IR built from them: the
  // load's peak.
  std::string node_bytes;
  std::vector<std::pair<size_t, size_t>> nodes;
};

// Splits a mapped model file. Returns nullopt when the bytes are not a well-formed ModelProto at the wire level
// (the caller then parses the whole file and reports protobuf's error) or hold no raw weights worth splitting.
std::optional<WeightSplit> SplitWeights(const std::shared_ptr<const Buffer>& file);

}  // namespace kiln
