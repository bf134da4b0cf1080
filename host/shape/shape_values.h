// Shape values: what shape inference knows of the contents of a small integer tensor computed from shapes, the
// `Shape -> Gather -> Unsqueeze -> Concat -> Reshape` chains exporters write for every view and reshape.
//
// What: a scalar or 1-D integer tensor whose elements are each a symbolic dimension (DimExpr) or unknown,
// propagated through Shape, Size, Gather, Slice, Concat, Cast, Squeeze/Unsqueeze, Reshape, Identity and integer
// Add/Sub/Mul/Div/Mod/Neg/Min/Max; constants (initializers and Constant nodes of at most kMaxElements elements)
// are shape values too. The values then give the consumers' output shapes (RefineOutputs): Reshape, Expand,
// ConstantOfShape, Tile, and output dims that ONNX's inference leaves unknown when they are symbolic (Concat,
// Flatten).
// Why correct: each rule computes exactly what the op computes on the known elements (integer division only
// where it is floor division: non-negative dims by a positive constant), an element it cannot compute is
// unknown, and an output dim is only ever given where ONNX's semantics fix it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "ir/type.h"
#include "shape/dim_expr.h"

namespace kiln {

class Node;
class Value;

struct ShapeData {
  static constexpr size_t kMaxElements = 64;
  bool scalar = false;  // rank 0 (then elems has one element); else rank 1
  std::vector<std::optional<DimExpr>> elems;

  bool fully_known() const;  // every element a constant
  bool operator==(const ShapeData&) const;
};

// The expression a dimension of the IR stands for (nullopt when unknown), and back.
std::optional<DimExpr> ExprOfDim(const Dim& d);
Dim DimOfExpr(const std::optional<DimExpr>& e);

// The shape value of `v`: inferred (Value::shape_data) or read from a small integer constant. Null when unknown.
std::shared_ptr<const ShapeData> ShapeValueOf(const Value* v);

// The shape value of node output 0 from its inputs' (null when the op is not one of the rules' or nothing is
// known).
std::shared_ptr<const ShapeData> PropagateShapeValue(const Node& n);

// Refines the output types ONNX's inference gave `n` (outputs[i] for output i) with what the shape values of
// its inputs and Kiln's symbolic dims add.
void RefineOutputs(const Node& n, std::vector<Type>& outputs);

}  // namespace kiln
