// Every operator of ONNX's default domain, with hostile attribute values (huge, negative, zero, NaN, lists of the
// wrong length) on inputs of every rank from 0 to 4, through import, the checks before inference and ONNX's own
// inference functions: each node is inferred or refused with an error, never crashed on. A sweep like this found
// libonnx 1.12 crashing on LayerNormalization (an axis outside the rank, or a scalar input), GatherND (a negative
// batch_dims) and STFT (a signal of rank 1); node_checks.cc refuses those first.
#include <gtest/gtest.h>

#include <onnx/defs/data_type_utils.h>
#include <onnx/defs/schema.h>

#include <cmath>
#include <limits>
#include <variant>
#include <vector>

#include "ir/model.h"
#include "onnx/onnx_import.h"
#include "shape/node_checks.h"
#include "shape/shape_inference.h"
#include "support/error.h"

namespace kiln {
namespace {

using Hostile = std::variant<int64_t, std::vector<int64_t>, float>;

std::vector<Hostile> HostileValues(onnx::AttributeProto::AttributeType type) {
  switch (type) {
    case onnx::AttributeProto::INT:
      return {int64_t{-32772}, int64_t{32772}, int64_t{-1}, int64_t{0}, int64_t{-5}};
    case onnx::AttributeProto::INTS:
      return {std::vector<int64_t>{}, std::vector<int64_t>{-32772}, std::vector<int64_t>{32772, 1, 1, 1, 1, 1, 1},
              std::vector<int64_t>(10, 0), std::vector<int64_t>{-1, -1}, std::vector<int64_t>{5}};
    case onnx::AttributeProto::FLOAT:
      return {std::numeric_limits<float>::quiet_NaN(), -1e30f};
    default:
      return {};
  }
}

// The first tensor type an input accepts, float or int64 where it may, with `rank` dims of 2, 3, 4, 5.
std::optional<onnx::TypeProto> InputType(const onnx::OpSchema::FormalParameter& f, int rank) {
  const auto& allowed = f.GetTypes();
  if (allowed.empty()) return std::nullopt;
  onnx::DataType pick = *allowed.begin();
  for (const char* preferred : {"tensor(int64)", "tensor(float)"})
    for (onnx::DataType t : allowed)
      if (*t == preferred) pick = t;
  onnx::TypeProto type = onnx::Utils::DataTypeUtils::ToTypeProto(pick);
  if (!type.has_tensor_type()) return std::nullopt;
  auto* shape = type.mutable_tensor_type()->mutable_shape();
  for (int d = 0; d < rank; ++d) shape->add_dim()->set_dim_value(2 + d);
  return type;
}

onnx::ModelProto SweepModel(const onnx::OpSchema& schema, const std::vector<onnx::TypeProto>& inputs,
                            const std::string& attr, onnx::AttributeProto::AttributeType type, const Hostile& value) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* opset = m.add_opset_import();
  opset->set_version(schema.SinceVersion());
  auto* g = m.mutable_graph();
  g->set_name("sweep");
  auto* node = g->add_node();
  node->set_op_type(schema.Name());
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto* in = g->add_input();
    in->set_name("i" + std::to_string(i));
    *in->mutable_type() = inputs[i];
    node->add_input(in->name());
  }
  const auto& formals = schema.outputs();
  size_t outputs = formals.empty() ? 1 : formals.size();
  if (!formals.empty() && formals.back().GetOption() == onnx::OpSchema::Variadic) outputs = formals.size() + 1;
  for (size_t o = 0; o < outputs; ++o) {
    node->add_output("y" + std::to_string(o));
    g->add_output()->set_name("y" + std::to_string(o));
  }
  auto* a = node->add_attribute();
  a->set_name(attr);
  a->set_type(type);
  if (const auto* i = std::get_if<int64_t>(&value)) a->set_i(*i);
  if (const auto* is = std::get_if<std::vector<int64_t>>(&value))
    for (int64_t v : *is) a->add_ints(v);
  if (const auto* f = std::get_if<float>(&value)) a->set_f(*f);
  return m;
}

TEST(HostileAttributeSweep, EveryOpInfersOrRefusesWithoutCrashing) {
  size_t models = 0, refused = 0;
  for (const onnx::OpSchema& schema : onnx::OpSchemaRegistry::get_all_schemas()) {
    if (!schema.domain().empty() || schema.Deprecated()) continue;
    for (int rank = 0; rank <= 4; ++rank) {
      std::vector<onnx::TypeProto> inputs;
      const auto& formals = schema.inputs();
      const size_t count = std::max<size_t>(static_cast<size_t>(schema.min_input()), formals.empty() ? 0 : 1);
      for (size_t i = 0; i < count && i < formals.size(); ++i) {
        auto type = InputType(formals[i], rank);
        if (!type) break;
        inputs.push_back(*type);
      }
      if (inputs.size() < std::min(count, formals.size())) continue;
      for (const auto& [name, attr] : schema.attributes()) {
        for (const Hostile& value : HostileValues(attr.type)) {
          ++models;
          try {
            auto model = ImportModel(SweepModel(schema, inputs, name, attr.type, value), "<sweep>", "");
            InferShapes(*model);
            CheckModelForInference(*model);
          } catch (const Error&) {
            ++refused;  // an invalid model, named: what hostile input should get
          }
        }
      }
    }
  }
  EXPECT_GT(models, 4000u);
  EXPECT_GT(refused, 0u);
}

}  // namespace
}  // namespace kiln
