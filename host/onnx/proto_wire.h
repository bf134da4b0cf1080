// Protobuf wire format read and written by hand where Kiln streams a model in parts (weight_split.cc,
// onnx_export.cc): the ONNX field numbers those walk, tags, a varint, and a length-delimited field (tag, length,
// body) appended to a byte string.
#pragma once

#include <google/protobuf/message_lite.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace kiln {

// onnx.proto3's field numbers of the fields streamed by hand.
namespace onnx_field {
constexpr uint32_t kModelGraph = 7, kModelFunctions = 25;
constexpr uint32_t kGraphNode = 1, kGraphInitializer = 5, kGraphValueInfo = 13, kGraphQuantizationAnnotation = 14,
                   kGraphSparseInitializer = 15;
constexpr uint32_t kTensorDataType = 2, kTensorRawData = 9;
}  // namespace onnx_field

constexpr uint32_t kWireVarint = 0, kWireFixed64 = 1, kWireLengthDelimited = 2, kWireFixed32 = 5;

constexpr uint32_t WireTag(uint32_t field, uint32_t wire_type) { return (field << 3) | wire_type; }

inline void AppendVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

inline void AppendLengthDelimited(std::string& out, uint32_t field, std::string_view body) {
  AppendVarint(out, WireTag(field, kWireLengthDelimited));
  AppendVarint(out, body.size());
  out += body;
}

// `message` serialized as field `field` of its parent.
inline void AppendMessageField(std::string& out, uint32_t field, const google::protobuf::MessageLite& message) {
  AppendVarint(out, WireTag(field, kWireLengthDelimited));
  AppendVarint(out, message.ByteSizeLong());
  message.AppendToString(&out);
}

}  // namespace kiln
