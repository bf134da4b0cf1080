#include "fuzz_support.h"

#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>

namespace kiln::fuzz {

std::string ModelBytesFromText(const std::string& text) {
  onnx::ModelProto proto;
  auto status = onnx::OnnxParser::Parse(proto, text.c_str());
  if (!status.IsOK()) Fail("ModelBytesFromText", status.ErrorMessage());
  std::string bytes;
  if (!proto.SerializeToString(&bytes)) Fail("ModelBytesFromText", "serialization failed");
  return bytes;
}

}  // namespace kiln::fuzz
