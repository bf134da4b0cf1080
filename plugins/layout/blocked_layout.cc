// blocked_layout.cc: see blocked_layout.h.
#include "blocked_layout.h"

#include <numeric>

namespace kiln::layout {
namespace {

std::vector<int64_t> Inverse(const std::vector<int64_t>& p) {
  std::vector<int64_t> inv(p.size());
  for (size_t j = 0; j < p.size(); ++j) inv[static_cast<size_t>(p[j])] = static_cast<int64_t>(j);
  return inv;
}

// [0, 2 .. r-1, 1]: channels last.
std::vector<int64_t> ChannelsLast(int64_t rank) {
  std::vector<int64_t> p = {0};
  for (int64_t i = 2; i < rank; ++i) p.push_back(i);
  p.push_back(1);
  return p;
}

// A layout node, named so that a target's cost model can tell it from the op a call wraps, and uniquely within a
// body (ONNX Runtime refuses two nodes of one name): prefix, role, position, op.
sdk::Node Glue(sdk::Graph graph, const Emitted& e, std::string_view op, const std::vector<sdk::Value>& inputs) {
  return graph.CreateNode(op, inputs, 1, "",
                          std::string(sdk::kFormatGluePrefix) + e.role + "/" + std::to_string(e.nodes.size()) + "_" +
                              std::string(op));
}

sdk::Value Add(Emitted& e, sdk::Node node) {
  node.InferShapes();
  e.nodes.push_back(node);
  e.out = node.Output(0);
  return e.out;
}

// A Constant node (not an initializer), so that outlining moves it into the body with the ops that read it. Its
// `value` is a tensor attribute (value_ints needs opset 12): the data is made as a scratch initializer, copied into
// the attribute, and the initializer removed.
sdk::Value Ints(sdk::Graph graph, Emitted& e, const std::vector<int64_t>& values) {
  const int64_t n = static_cast<int64_t>(values.size());
  sdk::Value scratch = graph.CreateConstant<int64_t>(std::span<const int64_t>(&n, 1), values);
  sdk::Node c = Glue(graph, e, "Constant", {});
  c.SetTensor("value", scratch.ConstantData());
  scratch.Remove();
  c.InferShapes();
  e.nodes.push_back(c);
  return c.Output(0);
}

sdk::Value Transpose(sdk::Graph graph, Emitted& e, sdk::Value x, const std::vector<int64_t>& perm) {
  sdk::Node t = Glue(graph, e, "Transpose", {x});
  t.SetInts("perm", perm);
  return Add(e, t);
}

}  // namespace

std::vector<int64_t> BlockedLayout::StorageDims(const std::vector<int64_t>& nd) const {
  auto blocks = [&](int64_t c) { return c < 0 ? int64_t{-1} : (c + c0 - 1) / c0; };
  // The channels-last split view [N, S.., C1, C0], then the storage order.
  std::vector<int64_t> split = {nd[0]};
  split.insert(split.end(), nd.begin() + 2, nd.end());
  split.push_back(blocks(nd[1]));
  split.push_back(c0);
  std::vector<int64_t> out;
  for (int64_t i : StoragePerm()) out.push_back(split[static_cast<size_t>(i)]);
  return out;
}

std::vector<int64_t> BlockedLayout::StoragePerm() const {
  if (format == "NDC1HWC0") return {0, 1, 4, 2, 3, 5};
  std::vector<int64_t> p = {0, rank - 1};
  for (int64_t i = 1; i <= rank - 2; ++i) p.push_back(i);
  p.push_back(rank);
  return p;
}

std::string BlockedLayout::Tag() const {
  std::string tag = format + "_" + std::to_string(c0);
  return Padding() == 0 ? tag : tag + "_c" + std::to_string(channels);
}

bool IsBlockedFormat(std::string_view format, int64_t rank) {
  return (format == "NC1HWC0" && rank >= 3) || (format == "NDC1HWC0" && rank == 5);
}

Emitted EmitToBlocked(sdk::Graph graph, sdk::Value x, const BlockedLayout& l, std::string_view role) {
  Emitted e;
  e.role = role;
  sdk::Value v = x;
  if (l.Padding() > 0) {
    std::vector<int64_t> pads(static_cast<size_t>(2 * l.rank), 0);
    pads[static_cast<size_t>(l.rank + 1)] = l.Padding();  // the end of axis 1
    sdk::Value p = Ints(graph, e, pads);
    v = Add(e, Glue(graph, e, "Pad", {v, p}));
  }
  v = Transpose(graph, e, v, ChannelsLast(l.rank));
  std::vector<int64_t> split(static_cast<size_t>(l.rank - 1), 0);
  split.push_back(-1);
  split.push_back(l.c0);
  sdk::Value shape = Ints(graph, e, split);
  v = Add(e, Glue(graph, e, "Reshape", {v, shape}));
  Transpose(graph, e, v, l.StoragePerm());
  return e;
}

Emitted EmitFromBlocked(sdk::Graph graph, sdk::Value y, const BlockedLayout& l, std::string_view role) {
  Emitted e;
  e.role = role;
  sdk::Value v = Transpose(graph, e, y, Inverse(l.StoragePerm()));
  std::vector<int64_t> merge(static_cast<size_t>(l.rank - 1), 0);
  merge.push_back(-1);
  sdk::Value shape = Ints(graph, e, merge);
  v = Add(e, Glue(graph, e, "Reshape", {v, shape}));
  v = Transpose(graph, e, v, Inverse(ChannelsLast(l.rank)));
  if (l.Padding() > 0) {
    sdk::Value starts = Ints(graph, e, {0}), ends = Ints(graph, e, {l.channels}), axes = Ints(graph, e, {1});
    Add(e, Glue(graph, e, "Slice", {v, starts, ends, axes}));
  }
  return e;
}

}  // namespace kiln::layout
