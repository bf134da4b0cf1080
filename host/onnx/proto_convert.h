// Conversions between ONNX protobuf messages and the IR's value types (tensors, types). Shared by import and
// export; graphs and nodes are handled in onnx_import.cc and onnx_export.cc.
#pragma once

#include <functional>
#include <string>

#include <onnx/onnx_pb.h>

#include "ir/tensor.h"
#include "ir/type.h"

namespace kiln {

class ExternalDataReader;

// Takes the tensor's bytes out of `p` (without copying raw data). `where` names the tensor's place for messages.
// Checks that the data holds exactly what the dims and type call for. External data goes through `ext`, which
// may be null (then external data is refused).
Tensor TensorFromProto(onnx::TensorProto&& p, ExternalDataReader* ext, const std::string& where);

// Decides where a tensor's bytes go on export: return true after filling `p`'s external_data fields to write them
// externally; false writes them inline.
using ExternalSink = std::function<bool(const Tensor&, onnx::TensorProto*)>;
void TensorToProto(const Tensor& t, onnx::TensorProto* p, const ExternalSink* sink);

struct Attribute;
struct SparseTensor;

// Everything of an attribute but the graphs it holds (name, kind, reference, doc, values of every other kind).
void AttributeValueToProto(const Attribute& a, onnx::AttributeProto* ap);
void SparseTensorToProto(const SparseTensor& st, onnx::SparseTensorProto* sp);

Type TypeFromProto(const onnx::TypeProto& p);
void TypeToProto(const Type& t, onnx::TypeProto* p);

}  // namespace kiln
