// Refining a value's type with what inference learned, never weakening it.
#pragma once

#include <string_view>

#include "ir/type.h"

namespace kiln {

// A dimension name ONNX's or an exporter's inference made up ("unk__3"): a name the model's own symbol beats.
bool IsMadeUpSymbol(std::string_view s);

// Refines `have` with `got`; returns true when anything was learned. An unknown element type, rank or dimension
// takes the inferred one; a known dimension stays; a symbol stays unless inference proved it a number or
// `have`'s is made up and `got`'s is not. Conflicting kinds or ranks keep `have`.
bool RefineType(Type& have, const Type& got);

// True when RefineType can learn nothing more about `t`: a tensor with a known element type and every dimension
// a number or a symbol that is not made up.
bool IsSaturated(const Type& t);

}  // namespace kiln
