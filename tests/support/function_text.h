// Test models with model-local functions. ONNX 1.12's text parser reads graphs but not functions, so a function is
// written as a graph: its name, inputs and outputs are the function's (types are ignored) and its nodes the body. A
// string attribute written "@name:kind" (kind: f, i, s, t, floats, ints, strings) becomes a reference to the
// call's attribute `name` (ref_attr_name).
#pragma once

#include <onnx/onnx_pb.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ir/model.h"

namespace kiln::testing {

struct FunctionText {
  std::string domain;
  std::string graph;                    // "<name> (x, y) => (z) { z = Add (x, y) }" (types optional)
  std::vector<std::string> attributes;  // what a call may set
  std::vector<std::pair<std::string, int64_t>> opsets = {{"", 17}};
};

onnx::FunctionProto FunctionFromText(const FunctionText& f);
// The model text (as ParseModel takes it) with the functions added to its proto before import. Fails the current
// test and returns null when anything does not parse or import.
std::unique_ptr<Model> ParseModelWithFunctions(const std::string& model_text, const std::vector<FunctionText>& functions);
// The model text parsed into a proto with the functions added (no import).
onnx::ModelProto ModelProtoWithFunctions(const std::string& model_text, const std::vector<FunctionText>& functions);

}  // namespace kiln::testing
