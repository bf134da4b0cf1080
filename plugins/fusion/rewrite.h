// Applying a match: `fuse` outlines the matched nodes into one call of a kiln.fused function (one body for every
// group of the same shape: attributes and scalar constants are passed by reference); `rewrite` builds the
// replacement's nodes and constants, gives the root's readers (and graph-output name) to its result, and deletes
// the matched nodes left unused.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <string>

#include "matcher.h"

namespace kiln::fusion {

inline constexpr std::string_view kFusedDomain = "kiln.fused";

// The values a fuse action's call returns: the root's output 0, then the rule's extra outputs that are read
// outside the group.
std::vector<sdk::Value> FusedOutputs(const Match& m);

// Outlines the match; returns the call.
sdk::Node ApplyFuse(const Match& m, sdk::Graph graph);

// Checks a rewrite can be built without changing anything ("" when it can; else why not).
std::string CheckRewrite(const Match& m);
// Builds the replacement and rewires; the match's nodes left unused are deleted.
void ApplyRewrite(const Match& m, sdk::Graph graph);

}  // namespace kiln::fusion
