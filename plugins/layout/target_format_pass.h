// TargetFormatPass: runs the ops the active target prefers in a blocked format (NC1HWC0, NDC1HWC0) in that format,
// with format conversions only where the format changes, all as model-local functions of domain kiln.format.
//
//   Conv(x) -> Relu -> Conv -> y        becomes
//   ToNC1HWC0_16(x) -> Conv_NC1HWC0(.) -> Relu(.) -> Conv_NC1HWC0(.) -> FromNC1HWC0_16(.) -> y
//
// What. format_regions.h plans it: anchors (input 0 preferred blocked), the element-wise ops between them, regions
// taken when their conversions cost no more than the anchors converting at their own edges. Then, in
// topological order: an anchor becomes a call of kiln.format::<op or callee>_<format>, whose body is From
// (blocked -> ND), the original node, and To (ND -> blocked) when its output stays blocked; an agnostic node reads
// the blocked tensors directly (its output takes the storage shape); a To call converts each ND tensor an anchor
// reads, once; a From call converts each blocked tensor that something outside the region or the graph's outputs
// read. Conversions are Pad/Transpose/Reshape/Slice bodies (blocked_layout.h), so the model still runs on any
// ONNX runtime; identical bodies are shared (outlined with KILN_OUTLINE_REUSE_BODY). First, inverse pairs already
// in the graph cancel (GE's TransOpSymmetryEliminationPass): From(To(x)) is x, and To(From(t)) is t when t has
// the To's output type.
//
// When. A graph pass on the main graph in O3's AfterAutofuse stage (after fusion, which it does not change),
// switch oo.targetFormats, only with an active target that describes storage shapes (ABI 1.6) and a default-domain
// opset of 11 or more (Pad with its pads as an input). Without one it changes nothing. Counters: format_anchors, format_agnostic,
// format_conversions (To and From calls written), format_conversions_saved (the anchors' own conversions less
// those written), format_pairs_cancelled; the report gets reports.target_formats (each region's counts, seconds and
// decision).
//
// Why correct. An anchor's call computes From, the op, To: the op sees exactly its ND input, and its readers get
// its ND output back through a From. An element-wise op commutes with the layout change (same dims, no
// broadcasting, other operands of one element), so running it on the blocked tensor and converting afterwards
// equals converting first; the padding lanes it computes are never read as data, since every reader of a blocked
// tensor starts with From, which drops them. From(To(x)) = x exactly (blocked_layout.h).
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <string_view>

namespace kiln::layout {

class TargetFormatPass final : public sdk::GraphPass {
 public:
  static constexpr std::string_view kName = "TargetFormatPass";
  static constexpr std::string_view kDescription =
      "ops the target prefers in NC1HWC0 run in it; conversions (Pad/Transpose/Reshape bodies) only where needed";
  static constexpr std::string_view kSwitchOption = "oo.targetFormats";

  void Run(sdk::PassContext& ctx, sdk::Graph graph) override;
};

}  // namespace kiln::layout
