// format_regions.cc: see format_regions.h.
#include "format_regions.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <utility>

namespace kiln::layout {
namespace {

namespace target = sdk::active_target;

constexpr double kUnknownCost = std::numeric_limits<double>::infinity();

// Element types the conversion ops (Pad, Transpose, Reshape, Slice) take and a blocked kernel would hold.
bool ConvertibleType(int32_t t) {
  switch (t) {
    case KILN_ELEM_FLOAT: case KILN_ELEM_FLOAT16: case KILN_ELEM_BFLOAT16: case KILN_ELEM_DOUBLE:
    case KILN_ELEM_INT8: case KILN_ELEM_UINT8: case KILN_ELEM_INT32:
      return true;
    default:
      return false;
  }
}

std::string Preferred(const sdk::Node& n, bool is_output, size_t index) {
  try {
    return target::PreferredFormat(n, is_output, index);
  } catch (const sdk::Error&) {
    return "ND";  // a target that cannot answer keeps the op as it is
  }
}

double Transfer(const sdk::Value& v, std::string_view from, std::string_view to) {
  try {
    return target::TransferCost(v, from, to);
  } catch (const sdk::Error&) {
    return kUnknownCost;
  }
}

// The blocked layout of v in format, when v can take it: a convertible tensor of known rank and channel count
// whose storage shape on the target is exactly blocked_layout.h's.
std::optional<BlockedLayout> LayoutFor(const sdk::Value& v, const std::string& format) {
  if (!v || v.Kind() != KILN_TYPE_KIND_TENSOR || !ConvertibleType(v.ElemType())) return std::nullopt;
  const int64_t rank = v.Rank();
  if (!IsBlockedFormat(format, rank)) return std::nullopt;
  const std::span<const int64_t> span = v.Dims();
  std::vector<int64_t> dims(span.begin(), span.end());
  if (dims[1] <= 0) return std::nullopt;
  std::vector<int64_t> storage;
  try {
    storage = target::StorageShape(v, format);
  } catch (const sdk::Error&) {
    return std::nullopt;
  }
  if (storage.empty() || storage.back() <= 0) return std::nullopt;
  BlockedLayout l{format, rank, dims[1], storage.back()};
  if (l.StorageDims(dims) != storage) return std::nullopt;  // the target lays it out differently
  return l;
}

bool SameLayout(const BlockedLayout& a, const BlockedLayout& b) {
  return a.format == b.format && a.rank == b.rank && a.channels == b.channels && a.c0 == b.c0;
}

bool SameShape(const sdk::Value& a, const sdk::Value& b) {
  std::optional<sdk::TensorShape> sa = a.Shape(), sb = b.Shape();
  return sa && sb && *sa == *sb;
}

bool OneElement(const sdk::Value& v) {
  if (!v || v.Rank() < 0) return false;
  return std::ranges::all_of(v.Dims(), [](int64_t d) { return d == 1; });
}

struct UnionFind {
  std::vector<size_t> parent;
  size_t Make() {
    parent.push_back(parent.size());
    return parent.size() - 1;
  }
  size_t Find(size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  }
  void Join(size_t a, size_t b) { parent[Find(a)] = Find(b); }
};

class Planner {
 public:
  FormatPlan Run(const sdk::Graph& graph) {
    for (const sdk::Node& n : graph.TopoOrder())
      if (!TryAnchor(n)) TryAgnostic(n);
    if (plan_.members.empty()) return std::move(plan_);
    Cost();
    return std::move(plan_);
  }

 private:
  bool TryAnchor(const sdk::Node& n) {
    if (n.InputCount() < 1 || n.OutputCount() < 1 || n.SubgraphCount() > 0) return false;
    sdk::Value x = n.Input(0), y = n.Output(0);
    if (!x || !y) return false;
    const std::string f = Preferred(n, false, 0);
    std::optional<BlockedLayout> in = LayoutFor(x, f);
    if (!in) return false;
    auto blocked_in = layout_of_.find(x.raw());
    if (blocked_in != layout_of_.end() && !SameLayout(blocked_in->second, *in)) return false;
    FormatMember m{n, true, false, *in, {}, uf_.Make(), {{0, *in}}};
    if (blocked_in != layout_of_.end()) uf_.Join(m.region, region_of_[x.raw()]);
    for (size_t i = 1; i < n.InputCount(); ++i) {
      sdk::Value v = n.Input(i);
      auto it = v ? layout_of_.find(v.raw()) : layout_of_.end();
      if (it == layout_of_.end()) continue;
      if (const std::string p = Preferred(n, false, i); p != f && !p.empty()) continue;
      m.blocked_inputs.emplace_back(i, it->second);
      uf_.Join(m.region, region_of_[v.raw()]);
    }
    const std::string out_pref = Preferred(n, true, 0);
    if (n.OutputCount() == 1 && (out_pref == f || out_pref.empty())) {
      if (std::optional<BlockedLayout> out = LayoutFor(y, f)) {
        m.output_blocked = true;
        m.output_layout = *out;
        layout_of_[y.raw()] = *out;
        region_of_[y.raw()] = m.region;
      }
    }
    plan_.members.push_back(m);
    return true;
  }

  void TryAgnostic(const sdk::Node& n) {
    if (n.OutputCount() != 1 || n.InputCount() < 1 || n.SubgraphCount() > 0) return;
    sdk::Value y = n.Output(0);
    if (!y || !Preferred(n, true, 0).empty()) return;
    const BlockedLayout* layout = nullptr;
    std::vector<size_t> regions;
    for (size_t i = 0; i < n.InputCount(); ++i) {
      sdk::Value v = n.Input(i);
      if (!v) continue;
      if (!Preferred(n, false, i).empty()) return;
      auto it = layout_of_.find(v.raw());
      if (it == layout_of_.end()) {
        if (!OneElement(v)) return;
        continue;
      }
      if (layout && !SameLayout(*layout, it->second)) return;
      if (!SameShape(v, y)) return;  // no broadcasting into or out of a blocked tensor
      layout = &it->second;
      regions.push_back(region_of_[v.raw()]);
    }
    if (!layout) return;
    std::optional<BlockedLayout> out = LayoutFor(y, layout->format);
    if (!out || !SameLayout(*out, *layout)) return;  // e.g. a Cast that changes C0
    FormatMember m{n, false, true, *layout, *out, regions.front(), {}};
    for (size_t r : regions) uf_.Join(r, m.region);
    layout_of_[y.raw()] = *out;
    region_of_[y.raw()] = m.region;
    plan_.members.push_back(m);
  }

  // Whether member m reads v in a slot where it takes the blocked tensor.
  static bool ReadsBlocked(const FormatMember& m, const sdk::Value& v, size_t index) {
    if (!m.anchor) return true;
    return std::ranges::any_of(m.blocked_inputs, [&](const auto& b) { return b.first == index; }) &&
           m.node.Input(index) == v;
  }

  void Cost() {
    std::map<size_t, size_t> dense;  // union-find root -> region index
    for (FormatMember& m : plan_.members) {
      size_t root = uf_.Find(m.region);
      auto [it, added] = dense.emplace(root, plan_.regions.size());
      if (added) plan_.regions.emplace_back();
      m.region = it->second;
    }
    std::map<KilnNode*, const FormatMember*> member_of;
    for (const FormatMember& m : plan_.members) member_of[m.node.raw()] = &m;
    std::set<std::pair<KilnValue*, std::string>> to_done;
    for (const FormatMember& m : plan_.members) {
      FormatRegion& r = plan_.regions[m.region];
      sdk::Value y = m.node.Output(0);
      if (m.anchor) {
        ++r.anchors;
        sdk::Value x = m.node.Input(0);
        r.nd_seconds += Transfer(x, "ND", m.input_layout.format);
        if (m.output_blocked) r.nd_seconds += Transfer(y, m.output_layout.format, "ND");
        if (!layout_of_.count(x.raw()) && to_done.emplace(x.raw(), m.input_layout.format).second) {
          ++r.to_conversions;
          r.blocked_seconds += Transfer(x, "ND", m.input_layout.format);
        }
      } else {
        ++r.agnostic;
        if (const int64_t pad = m.output_layout.Padding(); pad > 0) {
          // The lanes past C cost (C + pad) / C of the ND bytes for every blocked tensor it reads and writes; the
          // target's conversion cost of y, (ND bytes + blocked bytes) / bandwidth + a launch, bounds what one pass
          // over y's ND bytes costs from above.
          const double ratio = static_cast<double>(m.output_layout.channels + pad) / m.output_layout.channels;
          size_t tensors = 1;
          for (size_t i = 0; i < m.node.InputCount(); ++i)
            if (sdk::Value v = m.node.Input(i); v && layout_of_.count(v.raw())) ++tensors;
          r.blocked_seconds +=
              Transfer(y, "ND", m.output_layout.format) * (ratio - 1) / (ratio + 1) * static_cast<double>(tensors);
        }
      }
      if (!m.output_blocked) continue;
      plan_.region_of_value[y.raw()] = m.region;
      bool nd_reader = y.IsGraphOutput();
      for (const sdk::Use& u : y.Consumers()) {
        auto it = member_of.find(u.node.raw());
        if (it == member_of.end() || !ReadsBlocked(*it->second, y, u.input_index)) nd_reader = true;
      }
      if (nd_reader) {
        ++r.from_conversions;
        r.blocked_seconds += Transfer(y, m.output_layout.format, "ND");
      }
    }
    for (FormatRegion& r : plan_.regions) r.chosen = r.blocked_seconds <= r.nd_seconds * (1 + 1e-9);
    if (!plan_.members.empty()) plan_.format = plan_.members.front().input_layout.format;
  }

  FormatPlan plan_;
  UnionFind uf_;
  std::map<KilnValue*, BlockedLayout> layout_of_;
  std::map<KilnValue*, size_t> region_of_;
};

}  // namespace

FormatPlan PlanFormats(sdk::Graph graph) {
  if (target::ActiveName().empty()) return {};
  return Planner().Run(graph);
}

}  // namespace kiln::layout
