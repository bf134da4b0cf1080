// Golden-test helpers: models written in ONNX's text form (onnx::OnnxParser), imported into the IR, and graphs
// printed back in that form (onnx's operator<<) for comparison. Set KILN_UPDATE_GOLDENS=1 to rewrite golden
// files when a change is intended; review the diff.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "ir/model.h"

namespace kiln::testing {

// Parses ONNX text (a model: `<ir_version: 8, opset_import: ["" : 17]> graph (...) => (...) {...}`) into the IR.
// Fails the current test (and returns null) when the text does not parse or import.
std::unique_ptr<Model> ParseModel(const std::string& text);
// The model's top graph in ONNX text form, after export (nodes in topological order).
std::string PrintGraph(const Model& model);
// Parses and prints `text`, so that expected graphs are compared in the printer's own layout.
std::string Canonical(const std::string& text);
// Compares the printed graph with the file's content (a model in ONNX text form); rewrites the file instead
// when KILN_UPDATE_GOLDENS=1. Returns a gtest assertion result.
::testing::AssertionResult MatchesGoldenFile(const Model& model, const std::string& path);

}  // namespace kiln::testing
