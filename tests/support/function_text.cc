#include "support/function_text.h"

#include <gtest/gtest.h>
#include <onnx/defs/parser.h>

#include "onnx/onnx_import.h"
#include "support/error.h"

namespace kiln::testing {
namespace {

onnx::AttributeProto::AttributeType KindOf(const std::string& k) {
  if (k == "f") return onnx::AttributeProto::FLOAT;
  if (k == "i") return onnx::AttributeProto::INT;
  if (k == "s") return onnx::AttributeProto::STRING;
  if (k == "t") return onnx::AttributeProto::TENSOR;
  if (k == "floats") return onnx::AttributeProto::FLOATS;
  if (k == "ints") return onnx::AttributeProto::INTS;
  if (k == "strings") return onnx::AttributeProto::STRINGS;
  ADD_FAILURE() << "unknown attribute kind '" << k << "' in a reference";
  return onnx::AttributeProto::UNDEFINED;
}

void MakeReferences(onnx::NodeProto& n) {
  for (auto& a : *n.mutable_attribute()) {
    if (a.type() == onnx::AttributeProto::STRING && !a.s().empty() && a.s()[0] == '@') {
      std::string spec = a.s().substr(1);
      size_t colon = spec.find(':');
      std::string ref = spec.substr(0, colon), kind = colon == std::string::npos ? "f" : spec.substr(colon + 1);
      a.clear_s();
      a.set_type(KindOf(kind));
      a.set_ref_attr_name(ref);
    }
    if (a.has_g())
      for (auto& inner : *a.mutable_g()->mutable_node()) MakeReferences(inner);
  }
}

}  // namespace

onnx::FunctionProto FunctionFromText(const FunctionText& f) {
  onnx::GraphProto g;
  auto status = onnx::OnnxParser::Parse(g, f.graph.c_str());
  if (!status.IsOK()) ADD_FAILURE() << "function text does not parse: " << status.ErrorMessage() << "\n" << f.graph;
  onnx::FunctionProto fp;
  fp.set_name(g.name());
  fp.set_domain(f.domain);
  for (const auto& in : g.input()) fp.add_input(in.name());
  for (const auto& out : g.output()) fp.add_output(out.name());
  for (const auto& a : f.attributes) fp.add_attribute(a);
  for (const auto& n : g.node()) {
    onnx::NodeProto* np = fp.add_node();
    *np = n;
    MakeReferences(*np);
  }
  for (const auto& [d, v] : f.opsets) {
    auto* o = fp.add_opset_import();
    o->set_domain(d);
    o->set_version(v);
  }
  return fp;
}

onnx::ModelProto ModelProtoWithFunctions(const std::string& model_text, const std::vector<FunctionText>& functions) {
  onnx::ModelProto proto;
  auto status = onnx::OnnxParser::Parse(proto, model_text.c_str());
  if (!status.IsOK()) ADD_FAILURE() << "ONNX text does not parse: " << status.ErrorMessage() << "\n" << model_text;
  for (const FunctionText& f : functions) *proto.add_functions() = FunctionFromText(f);
  return proto;
}

std::unique_ptr<Model> ParseModelWithFunctions(const std::string& model_text, const std::vector<FunctionText>& functions) {
  onnx::ModelProto proto = ModelProtoWithFunctions(model_text, functions);
  try {
    return ImportModel(std::move(proto), "<text>", "");
  } catch (const Error& e) {
    ADD_FAILURE() << "import failed: " << e.what();
    return nullptr;
  }
}

}  // namespace kiln::testing
