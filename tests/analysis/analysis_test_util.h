// Shared by the analysis tests: models in ONNX text form, and nodes found by their first output's name.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "ir/graph.h"
#include "ir/model.h"
#include "support/golden.h"

namespace kiln::testing {

inline std::string M(const std::string& graph) { return "<ir_version: 8, opset_import: [\"\" : 17]>\n" + graph; }

// The node of `g` whose first output is named `name` (fails the test and returns null when there is none).
inline Node* N(const Graph& g, const std::string& name) {
  Value* v = g.FindValue(name);
  if (v == nullptr || v->producer() == nullptr) {
    ADD_FAILURE() << "no node computes '" << name << "'";
    return nullptr;
  }
  return v->producer();
}

// The first output's name of a node; "(none)" for null.
inline std::string NameOf(const Node* n) {
  if (n == nullptr) return "(none)";
  return n->num_outputs() && n->output(0) ? n->output(0)->name() : n->op_type();
}

}  // namespace kiln::testing
