// Names and helpers shared by the folding passes: the marks GE's family reads and writes on nodes, and the
// small questions every folding pass asks (is this value constant, what is its data, how big is it).
//
// Marks read from the input (user marks, kept on export): kDoNotFold, kNoNeedFold.
// Marks Kiln writes (temporary: their names start with KILN_TEMPORARY_MARK_PREFIX, which the exporter strips):
//   kPotentialConst  the node's output 0 is computable now; kPotentialWeight holds that value;
//   kMarkOwner       the pass that set kPotentialConst: only that pass clears it.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::folding {

inline constexpr std::string_view kDoNotFold = "_do_not_constant_folding";
inline constexpr std::string_view kNoNeedFold = "no_need_constant_folding";
inline constexpr std::string_view kIsFromConstantFolding = KILN_TEMPORARY_MARK_PREFIX "is_from_constant_folding";
inline constexpr std::string_view kPotentialConst = KILN_TEMPORARY_MARK_PREFIX "is_potential_const";
inline constexpr std::string_view kPotentialWeight = KILN_TEMPORARY_MARK_PREFIX "potential_weight";
inline constexpr std::string_view kMarkOwner = KILN_TEMPORARY_MARK_PREFIX "potential_const_owner";

// True when a mark attribute is present and not explicitly 0/false.
inline bool HasMark(const sdk::Node& n, std::string_view mark) {
  sdk::Attribute a = n.Attr(mark);
  if (!a) return false;
  if (a.Type() == KILN_ATTR_INT) return a.Int() != 0;
  if (a.Type() == KILN_ATTR_STRING) return a.String() != "0" && a.String() != "false";
  return true;
}

// The computed value of a node marked potential constant (output 0), else a null view.
inline sdk::TensorView PotentialWeight(const sdk::Node& n) {
  if (!n || !HasMark(n, kPotentialConst)) return {};
  sdk::Attribute a = n.Attr(kPotentialWeight);
  return a && a.Type() == KILN_ATTR_TENSOR ? a.Tensor() : sdk::TensorView();
}

// Whether ConstOrPotential(v) has data, without asking for it: a view of a weight the host has not yet read typed
// costs an aligned copy of it (Buffer::AlignedSlice), which a test of every input of every node must not make.
inline bool IsConstOrPotential(const sdk::Value& v) {
  if (!v) return false;
  if (v.IsConstant()) return true;
  size_t index = 0;
  sdk::Node p = v.Producer(&index);
  return p && index == 0 && PotentialWeight(p);
}

// Data of a value that is a constant, or the output 0 of a potential constant; null otherwise.
inline sdk::TensorView ConstOrPotential(const sdk::Value& v) {
  if (!v) return {};
  if (v.IsConstant()) return v.ConstantData();
  size_t index = 0;
  sdk::Node p = v.Producer(&index);
  if (p && index == 0) return PotentialWeight(p);
  return {};
}

// The view Node::Compute takes for v: a constant's bytes where the host keeps them (ABI 1.8: the host aligns them
// only for a kernel that needs it, so a weight the file holds misaligned is transposed without a copy first), or a
// potential constant's data; null otherwise.
inline sdk::TensorView ComputeInputOf(const sdk::Value& v) {
  if (v && v.IsConstant()) return v.ConstantBytes().ForCompute();
  return ConstOrPotential(v);
}

inline int64_t ElemBytes(int32_t elem_type) {
  switch (elem_type) {
    case KILN_ELEM_COMPLEX128: return 16;
    case KILN_ELEM_DOUBLE: case KILN_ELEM_INT64: case KILN_ELEM_UINT64: case KILN_ELEM_COMPLEX64: return 8;
    case KILN_ELEM_FLOAT: case KILN_ELEM_INT32: case KILN_ELEM_UINT32: return 4;
    case KILN_ELEM_FLOAT16: case KILN_ELEM_BFLOAT16: case KILN_ELEM_INT16: case KILN_ELEM_UINT16: return 2;
    default: return 1;
  }
}

// Replaces every use of `node`'s used outputs by new constants holding `values[i]` (a graph output keeps its
// name: see value_replace_all_uses) and deletes the node. Inputs left without consumers go when the pass ends.
template <class GetValue>
void ReplaceOutputsWithConstants(const sdk::Node& node, GetValue value_of) {
  sdk::Graph g = node.OwnerGraph();
  for (size_t i = 0; i < node.OutputCount(); ++i) {
    sdk::Value out = node.Output(i);
    if (!out || (out.ConsumerCount() == 0 && !out.IsGraphOutput())) continue;
    sdk::TensorView t = value_of(i);
    sdk::Value c = g.CopyConstant(t, std::string(out.Name()) + "_folded");
    out.ReplaceAllUsesWith(c);
  }
  node.Delete();
}

}  // namespace kiln::folding

namespace kiln::folding {

// A tensor view over caller-owned integer data (for marks and constants computed by a pass): int64 values, seen
// as INT64 or (elem_type KILN_ELEM_INT32) narrowed to INT32.
struct OwnedInt64View {
  std::vector<int64_t> dims, values;
  int32_t elem_type = KILN_ELEM_INT64;
  std::vector<int32_t> narrowed;
  KilnTensorView raw{};
  sdk::TensorView View() {
    raw.struct_size = sizeof raw;
    raw.elem_type = elem_type;
    raw.rank = static_cast<uint32_t>(dims.size());
    raw.dims = dims.empty() ? nullptr : dims.data();
    if (elem_type == KILN_ELEM_INT32) {
      narrowed.assign(values.begin(), values.end());
      raw.data = narrowed.empty() ? nullptr : narrowed.data();
      raw.byte_size = narrowed.size() * sizeof(int32_t);
    } else {
      raw.data = values.empty() ? nullptr : values.data();
      raw.byte_size = values.size() * sizeof(int64_t);
    }
    return sdk::TensorView(&raw);
  }
};

// Marks `node` a potential constant holding `value` (its output 0), owned by pass `owner`.
inline void MarkPotentialConst(const sdk::Node& node, sdk::TensorView value, std::string_view owner) {
  node.SetTensor(kPotentialWeight, value);
  node.SetString(kMarkOwner, owner);
  node.SetInt(kPotentialConst, 1);
}

}  // namespace kiln::folding
