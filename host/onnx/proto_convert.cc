#include "onnx/proto_convert.h"

#include "ir/attribute.h"

#include <array>
#include <cstring>
#include <vector>

#include "onnx/external_data.h"
#include "support/error.h"

namespace kiln {
namespace {

using onnx::TensorProto;

// Typed fields: ONNX stores narrow integer and 16-bit float types widened into int32_data, 32-bit unsigned
// ones in uint64_data, complex numbers as pairs.
template <typename Out, typename Field>
std::string Narrow(const Field& field) {
  std::string bytes(static_cast<size_t>(field.size()) * sizeof(Out), '\0');
  auto* dst = reinterpret_cast<Out*>(bytes.data());
  for (int i = 0; i < field.size(); ++i) dst[i] = static_cast<Out>(field.Get(i));
  return bytes;
}

template <typename In, typename Field>
void Widen(std::span<const std::byte> bytes, Field* field) {
  size_t n = bytes.size() / sizeof(In);
  field->Reserve(static_cast<int>(n));
  for (size_t i = 0; i < n; ++i) {
    In v;
    std::memcpy(&v, bytes.data() + i * sizeof(In), sizeof(In));
    field->Add(v);
  }
}

// Returns the bytes the typed fields hold, and how many scalar entries they had.
std::string TypedBytes(const TensorProto& p, DataType t) {
  switch (t) {
    case DataType::kFloat:
    case DataType::kComplex64: return Narrow<float>(p.float_data());
    case DataType::kDouble:
    case DataType::kComplex128: return Narrow<double>(p.double_data());
    case DataType::kInt64: return Narrow<int64_t>(p.int64_data());
    case DataType::kUInt64: return Narrow<uint64_t>(p.uint64_data());
    case DataType::kUInt32: return Narrow<uint32_t>(p.uint64_data());
    case DataType::kInt32: return Narrow<int32_t>(p.int32_data());
    case DataType::kInt16: return Narrow<int16_t>(p.int32_data());
    case DataType::kUInt16:
    case DataType::kFloat16:
    case DataType::kBFloat16: return Narrow<uint16_t>(p.int32_data());
    case DataType::kInt8: return Narrow<int8_t>(p.int32_data());
    case DataType::kUInt8:
    case DataType::kBool: return Narrow<uint8_t>(p.int32_data());
    default: return {};
  }
}

void WriteTyped(std::span<const std::byte> b, DataType t, TensorProto* p) {
  switch (t) {
    case DataType::kFloat:
    case DataType::kComplex64: return Widen<float>(b, p->mutable_float_data());
    case DataType::kDouble:
    case DataType::kComplex128: return Widen<double>(b, p->mutable_double_data());
    case DataType::kInt64: return Widen<int64_t>(b, p->mutable_int64_data());
    case DataType::kUInt64: return Widen<uint64_t>(b, p->mutable_uint64_data());
    case DataType::kUInt32: return Widen<uint32_t>(b, p->mutable_uint64_data());
    case DataType::kInt32: return Widen<int32_t>(b, p->mutable_int32_data());
    case DataType::kInt16: return Widen<int16_t>(b, p->mutable_int32_data());
    case DataType::kUInt16:
    case DataType::kFloat16:
    case DataType::kBFloat16: return Widen<uint16_t>(b, p->mutable_int32_data());
    case DataType::kInt8: return Widen<int8_t>(b, p->mutable_int32_data());
    case DataType::kUInt8:
    case DataType::kBool: return Widen<uint8_t>(b, p->mutable_int32_data());
    default: return;
  }
}

bool HasTypedData(const TensorProto& p) {
  return p.float_data_size() || p.int32_data_size() || p.int64_data_size() || p.double_data_size() ||
         p.uint64_data_size();
}

std::string DimsText(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

}  // namespace

Tensor TensorFromProto(TensorProto&& p, ExternalDataReader* ext, const std::string& where) {
  std::vector<int64_t> dims(p.dims().begin(), p.dims().end());
  auto type = static_cast<DataType>(p.data_type());
  const size_t elem = ElementSize(type);
  Tensor t;
  if (type == DataType::kString) {
    // One string per element: a count that disagrees with the dims is invalid data, as for the other types.
    uint64_t count = 1;
    for (int64_t d : dims)
      if (d < 0 || __builtin_mul_overflow(count, static_cast<uint64_t>(d), &count))
        throw ModelError(where + ": dims " + DimsText(dims) + " are negative or overflow");
    if (count != static_cast<uint64_t>(p.string_data_size()))
      throw ModelError(where + ": " + std::to_string(p.string_data_size()) + " strings, but dims " + DimsText(dims) +
                       " hold " + std::to_string(count));
    std::vector<std::string> strings;
    strings.reserve(static_cast<size_t>(p.string_data_size()));
    for (auto& s : *p.mutable_string_data()) strings.push_back(std::move(s));
    t = Tensor::FromStrings(std::move(dims), std::move(strings));
    t.set_storage(Tensor::Storage::kTyped);
  } else {
    Tensor shape_only(type, dims, nullptr);
    std::optional<uint64_t> expected = shape_only.expected_bytes();
    if (elem != 0 && !expected)
      throw ModelError(where + ": dims " + DimsText(dims) + " are negative or overflow");
    std::shared_ptr<const Buffer> data;
    Tensor::Storage storage = Tensor::Storage::kRaw;
    std::optional<ExternalDataInfo> info;
    std::shared_ptr<const Buffer> lent = ext != nullptr ? ext->TakeLent(&p) : nullptr;
    if (p.data_location() == TensorProto::EXTERNAL) {
      info.emplace();
      for (const auto& e : p.external_data()) {
        if (e.key() == "location") info->location = e.value();
        info->entries.emplace_back(e.key(), e.value());
      }
      if (ext == nullptr) throw ModelError(where + ": external data is not allowed here");
      data = ext->Read(*info, elem ? *expected : 0, where, ElementAlignment(type));
      storage = Tensor::Storage::kExternal;
    } else if (lent) {
      data = std::move(lent);  // raw_data borrowed from the model file (weight_split.h)
    } else if (p.has_raw_data() || !HasTypedData(p)) {
      std::string raw;
      p.mutable_raw_data()->swap(raw);
      data = Buffer::FromString(std::move(raw));
      storage = p.has_raw_data() ? Tensor::Storage::kRaw : Tensor::Storage::kTyped;
    } else {
      data = Buffer::FromString(TypedBytes(p, type));
      storage = Tensor::Storage::kTyped;
    }
    if (elem != 0 && data->size() != *expected)
      throw ModelError(where + ": dims " + DimsText(dims) + " of " + std::string(DataTypeName(type)) + " need " +
                       std::to_string(*expected) + " bytes, but the data holds " + std::to_string(data->size()));
    t = Tensor(type, std::move(dims), std::move(data));
    t.set_storage(storage);
    t.set_external(std::move(info));
  }
  t.set_name(p.name());
  t.set_doc_string(p.doc_string());
  if (p.has_segment()) t.set_segment(std::make_pair(p.segment().begin(), p.segment().end()));
  return t;
}

void TensorToProto(const Tensor& t, TensorProto* p, const ExternalSink* sink) {
  for (int64_t d : t.dims()) p->add_dims(d);
  p->set_data_type(static_cast<int32_t>(t.type()));
  if (!t.name().empty()) p->set_name(t.name());
  if (!t.doc_string().empty()) p->set_doc_string(t.doc_string());
  if (t.segment()) {
    p->mutable_segment()->set_begin(t.segment()->first);
    p->mutable_segment()->set_end(t.segment()->second);
  }
  if (t.type() == DataType::kString) {
    for (const auto& s : t.strings()) p->add_string_data(s);
    return;
  }
  if (sink != nullptr && (*sink)(t, p)) return;
  if (t.storage() == Tensor::Storage::kTyped && ElementSize(t.type()) != 0) {
    WriteTyped(t.bytes(), t.type(), p);
  } else {
    auto bytes = t.raw_bytes();
    p->set_raw_data(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
}

void SparseTensorToProto(const SparseTensor& st, onnx::SparseTensorProto* sp) {
  TensorToProto(st.values, sp->mutable_values(), nullptr);
  TensorToProto(st.indices, sp->mutable_indices(), nullptr);
  for (int64_t d : st.dims) sp->add_dims(d);
}

void AttributeValueToProto(const Attribute& a, onnx::AttributeProto* ap) {
  ap->set_name(a.name);
  if (a.kind_declared) ap->set_type(static_cast<onnx::AttributeProto::AttributeType>(a.kind));
  if (!a.ref_attr_name.empty()) ap->set_ref_attr_name(a.ref_attr_name);
  if (!a.doc_string.empty()) ap->set_doc_string(a.doc_string);
  if (a.f) ap->set_f(*a.f);
  if (a.i) ap->set_i(*a.i);
  if (a.s) ap->set_s(*a.s);
  if (a.t) TensorToProto(*a.t, ap->mutable_t(), nullptr);
  if (a.sparse_tensor) SparseTensorToProto(*a.sparse_tensor, ap->mutable_sparse_tensor());
  if (a.tp) TypeToProto(*a.tp, ap->mutable_tp());
  for (float f : a.floats) ap->add_floats(f);
  for (int64_t i : a.ints) ap->add_ints(i);
  for (const auto& s : a.strings) ap->add_strings(s);
  for (const auto& t : a.tensors) TensorToProto(t, ap->add_tensors(), nullptr);
  for (const auto& st : a.sparse_tensors) SparseTensorToProto(st, ap->add_sparse_tensors());
  for (const auto& tp : a.type_protos) TypeToProto(tp, ap->add_type_protos());
}

namespace {

// A symbolic dimension, sharing its out-of-line name with the last few made on this thread: a model names a handful
// of symbols ("batch", "seq") on thousands of values, and shape inference hands them back node by node.
Dim SymbolDim(const std::string& symbol) {
  thread_local std::array<Dim, 8> recent;
  thread_local size_t next = 0;
  for (const Dim& d : recent)
    if (d.symbol() == symbol) return d;
  Dim d = Dim::Symbol(symbol);
  recent[next++ % recent.size()] = d;
  return d;
}

}  // namespace

Type TypeFromProto(const onnx::TypeProto& p) {
  Type t;
  if (!p.denotation().empty()) t.set_denotation(p.denotation());
  auto shape_from = [](const onnx::TensorShapeProto& sp) {
    Shape s;
    s.dims.reserve(static_cast<size_t>(sp.dim_size()));
    for (const auto& d : sp.dim()) {
      Dim dim;
      if (d.has_dim_value()) dim.value = d.dim_value();
      else if (d.has_dim_param()) dim = SymbolDim(d.dim_param());
      if (!d.denotation().empty()) dim.set_denotation(d.denotation());
      s.dims.push_back(std::move(dim));
    }
    return s;
  };
  switch (p.value_case()) {
    case onnx::TypeProto::kTensorType:
      t.kind = Type::Kind::kTensor;
      t.elem = static_cast<DataType>(p.tensor_type().elem_type());
      t.elem_declared = p.tensor_type().has_elem_type();
      if (p.tensor_type().has_shape()) t.shape = shape_from(p.tensor_type().shape());
      break;
    case onnx::TypeProto::kSparseTensorType:
      t.kind = Type::Kind::kSparseTensor;
      t.elem = static_cast<DataType>(p.sparse_tensor_type().elem_type());
      t.elem_declared = p.sparse_tensor_type().has_elem_type();
      if (p.sparse_tensor_type().has_shape()) t.shape = shape_from(p.sparse_tensor_type().shape());
      break;
    case onnx::TypeProto::kSequenceType:
      t.kind = Type::Kind::kSequence;
      if (p.sequence_type().has_elem_type())
        t.inner = std::make_shared<const Type>(TypeFromProto(p.sequence_type().elem_type()));
      break;
    case onnx::TypeProto::kOptionalType:
      t.kind = Type::Kind::kOptional;
      if (p.optional_type().has_elem_type())
        t.inner = std::make_shared<const Type>(TypeFromProto(p.optional_type().elem_type()));
      break;
    case onnx::TypeProto::kMapType:
      t.kind = Type::Kind::kMap;
      t.elem = static_cast<DataType>(p.map_type().key_type());
      t.elem_declared = p.map_type().has_key_type();
      if (p.map_type().has_value_type())
        t.inner = std::make_shared<const Type>(TypeFromProto(p.map_type().value_type()));
      break;
    case onnx::TypeProto::kOpaqueType:
      t.kind = Type::Kind::kOpaque;
      t.set_opaque_domain(p.opaque_type().domain());
      t.set_opaque_name(p.opaque_type().name());
      break;
    default: break;
  }
  return t;
}

void TypeToProto(const Type& t, onnx::TypeProto* p) {
  if (!t.denotation().empty()) p->set_denotation(t.denotation());
  auto shape_to = [](const Shape& s, onnx::TensorShapeProto* sp) {
    for (const Dim& d : s.dims) {
      auto* dp = sp->add_dim();
      if (d.value) dp->set_dim_value(*d.value);
      else if (!d.symbol().empty()) dp->set_dim_param(d.symbol());
      if (!d.denotation().empty()) dp->set_denotation(d.denotation());
    }
  };
  switch (t.kind) {
    case Type::Kind::kNone: break;
    case Type::Kind::kTensor: {
      auto* tt = p->mutable_tensor_type();
      if (t.elem_declared) tt->set_elem_type(static_cast<int32_t>(t.elem));
      if (t.shape) shape_to(*t.shape, tt->mutable_shape());
      break;
    }
    case Type::Kind::kSparseTensor: {
      auto* tt = p->mutable_sparse_tensor_type();
      if (t.elem_declared) tt->set_elem_type(static_cast<int32_t>(t.elem));
      if (t.shape) shape_to(*t.shape, tt->mutable_shape());
      break;
    }
    case Type::Kind::kSequence: {
      auto* st = p->mutable_sequence_type();
      if (t.inner) TypeToProto(*t.inner, st->mutable_elem_type());
      break;
    }
    case Type::Kind::kOptional: {
      auto* ot = p->mutable_optional_type();
      if (t.inner) TypeToProto(*t.inner, ot->mutable_elem_type());
      break;
    }
    case Type::Kind::kMap: {
      auto* mt = p->mutable_map_type();
      if (t.elem_declared) mt->set_key_type(static_cast<int32_t>(t.elem));
      if (t.inner) TypeToProto(*t.inner, mt->mutable_value_type());
      break;
    }
    case Type::Kind::kOpaque: {
      auto* ot = p->mutable_opaque_type();
      if (!t.opaque_domain().empty()) ot->set_domain(t.opaque_domain());
      if (!t.opaque_name().empty()) ot->set_name(t.opaque_name());
      break;
    }
  }
}

}  // namespace kiln
