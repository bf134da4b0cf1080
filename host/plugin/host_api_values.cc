// Value helpers of the host slots: see host_api_values.h.
#include "plugin/host_api_values.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/node.h"
#include "ir/value.h"
#include "plugin/host_api.h"

namespace kiln::plugin {

int32_t TypeKindOf(const Type& t) {
  switch (t.kind) {
    case Type::Kind::kTensor: return KILN_TYPE_KIND_TENSOR;
    case Type::Kind::kSequence: return KILN_TYPE_KIND_SEQUENCE;
    case Type::Kind::kOptional: return KILN_TYPE_KIND_OPTIONAL;
    case Type::Kind::kMap: return KILN_TYPE_KIND_MAP;
    case Type::Kind::kSparseTensor: return KILN_TYPE_KIND_SPARSE_TENSOR;
    default: return KILN_TYPE_KIND_NONE;
  }
}

int32_t ElemTypeOf(const Type& t) {
  switch (t.kind) {
    case Type::Kind::kTensor:
    case Type::Kind::kSparseTensor: return static_cast<int32_t>(t.elem);
    case Type::Kind::kSequence:
    case Type::Kind::kOptional: return t.inner ? ElemTypeOf(*t.inner) : 0;
    default: return 0;
  }
}

int64_t ShapeOf(const Type& t, const int64_t** out_dims) {
  if ((t.kind != Type::Kind::kTensor && t.kind != Type::Kind::kSparseTensor) || !t.shape) return -1;
  if (out_dims) {
    constexpr size_t kOnStack = 16;
    const size_t rank = t.shape->rank();
    std::array<int64_t, kOnStack> small;
    std::vector<int64_t> large(rank > kOnStack ? rank : 0);
    int64_t* dims = rank > kOnStack ? large.data() : small.data();
    for (size_t i = 0; i < rank; ++i) dims[i] = t.shape->dims[i].is_known() ? *t.shape->dims[i].value : -1;
    *out_dims = CallFrame::Current().Dims({dims, rank});
  }
  return static_cast<int64_t>(t.shape->rank());
}

const char* DimSymbolOf(const Type& t, size_t index) {
  if ((t.kind != Type::Kind::kTensor && t.kind != Type::Kind::kSparseTensor) || !t.shape) return nullptr;
  if (index >= t.shape->rank()) return nullptr;
  const Dim& d = t.shape->dims[index];
  return d.is_symbol() ? d.symbol().c_str() : nullptr;
}

Type TensorTypeFrom(int32_t elem_type, int64_t rank, const int64_t* dims, const char* const* symbols) {
  if (elem_type != KILN_ELEM_UNDEFINED && !ValidElemType(elem_type))
    throw std::invalid_argument("element type " + std::to_string(elem_type) + " is not one Kiln knows");
  if (rank < -1 || rank > 64) throw std::invalid_argument("rank " + std::to_string(rank) + " is out of range");
  if (rank == -1) return Type::Tensor(static_cast<DataType>(elem_type));
  if (rank > 0 && dims == nullptr) throw std::invalid_argument("dims is NULL for rank " + std::to_string(rank));
  Shape shape;
  for (int64_t i = 0; i < rank; ++i) {
    if (dims[i] >= 0) {
      shape.dims.push_back(Dim::Known(dims[i]));
    } else if (dims[i] == -1) {
      const char* sym = symbols ? symbols[i] : nullptr;
      shape.dims.push_back(sym && *sym ? Dim::Symbol(sym) : Dim{});
    } else {
      throw std::invalid_argument("dimension " + std::to_string(i) + " is " + std::to_string(dims[i]) +
                                  " (use -1 for one that is not a known number)");
    }
  }
  return Type::Tensor(static_cast<DataType>(elem_type), std::move(shape));
}

std::vector<ConsumerSlot> ConsumersOf(const Value& v) {
  std::vector<ConsumerSlot> out;
  out.reserve(v.uses().size());
  const Graph* home = v.graph();
  for (const Use& u : v.uses()) {
    if (u.node->graph() == home) {
      out.push_back({u.node, u.slot});
      continue;
    }
    Node* holder = home->AncestorIn(u.node);
    if (holder == nullptr) continue;
    bool listed = std::any_of(out.begin(), out.end(), [&](const ConsumerSlot& c) {
      return c.node == holder && c.input_index == KILN_IMPLICIT_INPUT;
    });
    if (!listed) out.push_back({holder, KILN_IMPLICIT_INPUT});
  }
  return out;
}

namespace {

const Node* ConstantProducer(const Value& v) {
  const Node* p = v.producer();
  return p && p->op_type() == "Constant" && (p->domain().empty() || p->domain() == "ai.onnx") ? p : nullptr;
}

}  // namespace

bool IsConstantValue(const Value& v) {
  if (v.initializer() && !v.is_graph_input()) return true;
  return ConstantProducer(v) != nullptr;
}

std::shared_ptr<const Tensor> ConstantTensorOf(const Value& v) {
  if (v.initializer()) return v.is_graph_input() ? nullptr : v.initializer();
  const Node* p = ConstantProducer(v);
  if (p == nullptr) return nullptr;
  for (const Attribute& a : p->attributes()) {
    if (a.name == "value" && a.t) return std::make_shared<const Tensor>(*a.t);
    if (a.name == "value_float" && a.f) return std::make_shared<const Tensor>(Tensor::FromVector(DataType::kFloat, {}, std::vector<float>{*a.f}));
    if (a.name == "value_int" && a.i)
      return std::make_shared<const Tensor>(Tensor::FromVector(DataType::kInt64, {}, std::vector<int64_t>{*a.i}));
    if (a.name == "value_floats")
      return std::make_shared<const Tensor>(
          Tensor::FromVector(DataType::kFloat, {static_cast<int64_t>(a.floats.size())}, a.floats));
    if (a.name == "value_ints")
      return std::make_shared<const Tensor>(
          Tensor::FromVector(DataType::kInt64, {static_cast<int64_t>(a.ints.size())}, a.ints));
    if (a.name == "value_string" && a.s) return std::make_shared<const Tensor>(Tensor::FromStrings({}, {*a.s}));
    if (a.name == "value_strings")
      return std::make_shared<const Tensor>(Tensor::FromStrings({static_cast<int64_t>(a.strings.size())}, a.strings));
  }
  return nullptr;  // sparse_value, or a malformed Constant
}

}  // namespace kiln::plugin
