// Reading and writing run-time values as ONNX's test-data files: TensorProto, SequenceProto or OptionalProto
// serialized to `.pb` (the layout of ONNX's own test data, and of `kiln run`).
#pragma once

#include <string>

#include "ir/type.h"
#include "kernels/runtime_value.h"

namespace kiln {

// Reads a value of the declared `type` (its kind decides which message is expected; an unknown type reads a
// TensorProto). Throws kiln::Error (invalid input, exit 2) naming the file.
RtValue ReadValueFile(const std::string& path, const Type& type);
// Writes `v` under `name`; throws kiln::Error when the file cannot be written.
void WriteValueFile(const std::string& path, const RtValue& v, const std::string& name, const Type& type);
// "float[2,3]", "seq(float)[4]", "none": for messages.
std::string Describe(const RtValue& v);

}  // namespace kiln
