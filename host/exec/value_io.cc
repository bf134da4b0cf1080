#include "exec/value_io.h"

#include <onnx/onnx-data_pb.h>
#include <onnx/onnx_pb.h>

#include <fstream>
#include <sstream>

#include "onnx/proto_convert.h"
#include "support/atomic_file.h"
#include "support/error.h"

namespace kiln {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelError(path + ": cannot read");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

RtValue FromTensorProto(onnx::TensorProto&& p, const std::string& where) {
  return RtValue::Of(TensorFromProto(std::move(p), nullptr, where));
}

RtValue FromSequence(onnx::SequenceProto& s, const std::string& where) {
  std::vector<std::shared_ptr<const Tensor>> items;
  DataType elem = DataType::kUndefined;
  for (auto& t : *s.mutable_tensor_values()) {
    elem = static_cast<DataType>(t.data_type());
    items.push_back(std::make_shared<const Tensor>(TensorFromProto(std::move(t), nullptr, where)));
  }
  return RtValue::Sequence(elem, std::move(items));
}

void ToTensorProto(const Tensor& t, onnx::TensorProto* p, const std::string& name) {
  TensorToProto(t, p, nullptr);
  p->set_name(name);
}

}  // namespace

RtValue ReadValueFile(const std::string& path, const Type& type) {
  std::string bytes = Slurp(path);
  const std::string where = path;
  auto parse_error = [&](const char* what) { return ModelError(path + ": not a valid " + std::string(what)); };
  if (type.kind == Type::Kind::kSequence) {
    onnx::SequenceProto s;
    if (!s.ParseFromString(bytes)) throw parse_error("SequenceProto");
    RtValue v = FromSequence(s, where);
    if (v.sequence_elem == DataType::kUndefined && type.inner) v.sequence_elem = type.inner->elem;
    return v;
  }
  if (type.kind == Type::Kind::kOptional) {
    onnx::OptionalProto o;
    if (!o.ParseFromString(bytes)) throw parse_error("OptionalProto");
    RtValue v;
    if (o.has_tensor_value()) v = FromTensorProto(std::move(*o.mutable_tensor_value()), where);
    else if (o.has_sequence_value()) v = FromSequence(*o.mutable_sequence_value(), where);
    v.is_optional = true;
    return v;
  }
  onnx::TensorProto t;
  if (!t.ParseFromString(bytes)) throw parse_error("TensorProto");
  RtValue v = FromTensorProto(std::move(t), where);
  // ONNX 1.12 writes bfloat16 test data as UINT16 bits: take them as the declared bfloat16.
  if (type.is_tensor() && type.elem == DataType::kBFloat16 && v.tensor->type() == DataType::kUInt16)
    v.tensor = std::make_shared<const Tensor>(DataType::kBFloat16, v.tensor->dims(), v.tensor->buffer());
  return v;
}

void WriteValueFile(const std::string& path, const RtValue& v, const std::string& name, const Type& type) {
  std::string bytes;
  if (type.kind == Type::Kind::kOptional || v.is_optional) {
    onnx::OptionalProto o;
    o.set_name(name);
    if (v.is_tensor()) {
      o.set_elem_type(onnx::OptionalProto::TENSOR);
      ToTensorProto(*v.tensor, o.mutable_tensor_value(), name);
    } else if (v.kind == RtValue::Kind::kSequence) {
      o.set_elem_type(onnx::OptionalProto::SEQUENCE);
      auto* s = o.mutable_sequence_value();
      s->set_elem_type(onnx::SequenceProto::TENSOR);
      for (const auto& t : v.sequence) ToTensorProto(*t, s->add_tensor_values(), "");
    }
    bytes = o.SerializeAsString();
  } else if (v.kind == RtValue::Kind::kSequence) {
    onnx::SequenceProto s;
    s.set_name(name);
    s.set_elem_type(onnx::SequenceProto::TENSOR);
    for (const auto& t : v.sequence) ToTensorProto(*t, s.add_tensor_values(), "");
    bytes = s.SerializeAsString();
  } else if (v.is_tensor()) {
    onnx::TensorProto t;
    ToTensorProto(*v.tensor, &t, name);
    bytes = t.SerializeAsString();
  } else {
    throw ModelError("output '" + name + "' has no value to write");
  }
  AtomicFile f(path);
  f.stream().write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  f.Commit();
}

std::string Describe(const RtValue& v) {
  auto dims = [](const Tensor& t) {
    std::string s = "[";
    for (size_t i = 0; i < t.dims().size(); ++i) s += (i ? "," : "") + std::to_string(t.dims()[i]);
    return s + "]";
  };
  switch (v.kind) {
    case RtValue::Kind::kNone: return "none";
    case RtValue::Kind::kTensor: return std::string(DataTypeName(v.tensor->type())) + dims(*v.tensor);
    case RtValue::Kind::kSequence:
      return "seq(" + std::string(DataTypeName(v.sequence_elem)) + ")[" + std::to_string(v.sequence.size()) + "]";
  }
  return "?";
}

}  // namespace kiln
