// Protobuf wire format written by hand where Kiln streams a model in parts (weight_split.cc, onnx_export.cc): a
// varint, and a length-delimited field (tag, length, body) appended to a byte string.
#pragma once

#include <google/protobuf/message_lite.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace kiln {

inline void AppendVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

inline void AppendLengthDelimited(std::string& out, uint32_t field, std::string_view body) {
  AppendVarint(out, (uint64_t{field} << 3) | 2);
  AppendVarint(out, body.size());
  out += body;
}

// `message` serialized as field `field` of its parent.
inline void AppendMessageField(std::string& out, uint32_t field, const google::protobuf::MessageLite& message) {
  AppendVarint(out, (uint64_t{field} << 3) | 2);
  AppendVarint(out, message.ByteSizeLong());
  message.AppendToString(&out);
}

}  // namespace kiln
