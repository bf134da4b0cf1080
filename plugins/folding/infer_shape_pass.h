// InferShapePass: refreshes every value's type by ONNX's own shape inference (with data propagation), through
// the host's infer_shapes slot (host/shape/shape_inference.h does the work).
// When: first in each folding stage, so that folding and dimension computation see current shapes.
// Why correct: inference only refines types (never drops a known dimension or a symbol); it changes no node.
// It lives in the host because the export/import of types needs the IR and libonnx, which plugins never see.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <string_view>

namespace kiln::folding {

class InferShapePass : public sdk::GraphPass {
 public:
  static constexpr std::string_view kName = "InferShapePass";
  static constexpr std::string_view kDescription = "ONNX shape inference with data propagation over the whole model";
  void Run(sdk::PassContext& ctx, sdk::Graph graph) override;
};

}  // namespace kiln::folding
