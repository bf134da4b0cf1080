// Where annotations and temporary marks stand in an ONNX file (the ABI's KILN_ANNOTATIONS_METADATA_KEY and
// KILN_TEMPORARY_MARK_PREFIX; the same strings, kept here so the I/O code needs no plugin header).
#pragma once

#include <string_view>

namespace kiln {

// metadata_props key of the JSON object {"nodes": {name: {key: value}}, "values": {name: {key: value}}}.
inline constexpr std::string_view kAnnotationsMetadataKey = "kiln.annotations";
// Attributes and annotation keys starting with this are Kiln's temporary marks: never written out.
inline constexpr std::string_view kTemporaryMarkPrefix = "__kiln_";

inline bool IsTemporaryMark(std::string_view name) { return name.substr(0, kTemporaryMarkPrefix.size()) == kTemporaryMarkPrefix; }

}  // namespace kiln
