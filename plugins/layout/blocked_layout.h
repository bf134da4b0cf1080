// blocked_layout.h - channel-blocked formats (GE's NC1HWC0 and NDC1HWC0) and the standard ONNX nodes that convert
// a tensor into and out of one.
//
// An ND tensor of rank r >= 3, [N, C, S1 .. Sk] (k = r - 2 spatial dims), stored blocked with block C0:
//   NC1HWC0   [N, C1, S1 .. Sk, C0]           C1 = ceil(C / C0), channels past C are zero padding
//   NDC1HWC0  [N, D, C1, H, W, C0]            rank 5 only (NCDHW)
// To (ND -> blocked), as GE's TransData does it, in four standard ops:
//   Pad (the channel axis up to C1 * C0; only when C % C0 != 0)
//   Transpose [0, 2 .. r-1, 1]                 channels last: [N, S.., C1*C0]
//   Reshape [0 x (r-1), -1, C0]                [N, S.., C1, C0]
//   Transpose (the storage order)              NC1HWC0: [0, r-1, 1 .. r-2, r]; NDC1HWC0: [0, 1, 4, 2, 3, 5]
// From (blocked -> ND) is the inverse: Transpose back to [N, S.., C1, C0], Reshape [0 x (r-1), -1], Transpose
// [0, r-1, 1 .. r-2] and, when padded, Slice the channel axis to [0, C).
//
// Why correct: the channels-last view puts channel c at position c of the last axis; splitting that axis as
// (C1, C0) puts it at block c / C0, lane c % C0, which is GE's definition (HA-FMT: C1 = ceil(C / C0), zero
// padded). Each From step undoes the matching To step, and Slice drops exactly the padding Pad added, so
// From(To(x)) = x. To(From(t)) equals t except in the padding lanes, which no reader of a blocked tensor uses.
#pragma once

#include <kiln/kiln_plugin.hpp>
#include <kiln/kiln_plugin_target.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::layout {

struct BlockedLayout {
  std::string format;  // "NC1HWC0" or "NDC1HWC0"
  int64_t rank = 0;    // of the ND tensor
  int64_t channels = 0;
  int64_t c0 = 0;

  int64_t Padding() const { return (c0 - channels % c0) % c0; }
  // The blocked tensor's dims for ND dims (-1 stays -1).
  std::vector<int64_t> StorageDims(const std::vector<int64_t>& nd) const;
  // The storage order's permutation of the channels-last, split view [N, S.., C1, C0].
  std::vector<int64_t> StoragePerm() const;
  // "NC1HWC0_16", or "NC1HWC0_8_c3" when padded: what a conversion function's name says about its body.
  std::string Tag() const;
};

// Whether format is one BlockedLayout describes, for an ND tensor of this rank.
bool IsBlockedFormat(std::string_view format, int64_t rank);

// Nodes a conversion added to a graph (in order, each with its outputs typed and named
// sdk::kFormatGluePrefix + role + "/" + position + "_" + op; pads, shapes and slice bounds are Constant nodes among
// them) and the value it produces. role tells apart the conversions that end up in one body ("to", "from0").
struct Emitted {
  std::string role;
  std::vector<sdk::Node> nodes;
  sdk::Value out;
};

// Adds the To (ND -> blocked) nodes reading x to graph.
Emitted EmitToBlocked(sdk::Graph graph, sdk::Value x, const BlockedLayout& layout, std::string_view role = "to");
// Adds the From (blocked -> ND) nodes reading y to graph.
Emitted EmitFromBlocked(sdk::Graph graph, sdk::Value y, const BlockedLayout& layout,
                        std::string_view role = "from");

}  // namespace kiln::layout
