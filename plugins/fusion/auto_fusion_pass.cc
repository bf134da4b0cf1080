// AutoFusionPass: see auto_fusion_pass.h. The partitioner follows TVM's GraphPartitioner (RunFuse, CheckPath,
// CommitFuse) on Kiln's post-dominator tree; groups are a union-find over topological positions.
#include "auto_fusion_pass.h"

#include <kiln/kiln_node_table.hpp>
#include <kiln/kiln_plugin_parts.hpp>

#include <algorithm>
#include <optional>
#include <unordered_set>

#include "cost_model.h"
#include "fusion_report.h"
#include "legality.h"
#include "op_kinds.h"
#include "rewrite.h"

namespace kiln::fusion {
namespace {

class Partitioner {
 public:
  Partitioner(std::vector<sdk::Node> order, size_t max_size)
      : order_(std::move(order)), max_size_(max_size), position_(order_) {
    const size_t n = order_.size();
    parent_.resize(n);
    size_.assign(n, 1);
    kind_.resize(n);
    group_kind_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      parent_[i] = i;
      position_.Set(order_[i], i + 1);
      kind_[i] = group_kind_[i] = KindOf(order_[i]);
    }
    dom_.assign(n, -1);
    for (size_t i = 0; i < n; ++i) {
      if (kind_[i] == OpKind::kOpaque) continue;
      if (std::optional<size_t> d = Position(order_[i].ImmediatePostDominator())) dom_[i] = static_cast<int64_t>(*d);
    }
  }

  void Run() {
    for (int phase = 0; phase < 3; ++phase)
      for (size_t i = 0; i < order_.size(); ++i) Visit(i, phase);
  }

  // Groups of two nodes or more, each in topological order, the groups in the order of their roots' positions. The
  // nodes left alone get no list: a map from every root to its nodes took about 80 bytes a node (the 1M-node chain
  // at O3: 29 MB of the compile's peak).
  std::vector<std::vector<sdk::Node>> Groups() {
    constexpr size_t kAlone = static_cast<size_t>(-1);
    std::vector<size_t> slot(order_.size(), kAlone);  // a root's group in `out`
    std::vector<std::vector<sdk::Node>> out;
    for (size_t r = 0; r < order_.size(); ++r)
      if (Find(r) == r && size_[r] >= 2) {
        slot[r] = out.size();
        out.emplace_back().reserve(size_[r]);
      }
    for (size_t i = 0; i < order_.size(); ++i)
      if (const size_t s = slot[Find(i)]; s != kAlone) out[s].push_back(order_[i]);
    return out;
  }

 private:
  // A node's topological position; nullopt for one outside the order (and for none).
  std::optional<size_t> Position(const sdk::Node& n) const {
    const size_t p = n ? position_.Get(n) : 0;
    return p > 0 ? std::optional<size_t>(p - 1) : std::nullopt;
  }

  size_t Find(size_t i) {
    while (parent_[i] != i) i = parent_[i] = parent_[parent_[i]];
    return i;
  }
  OpKind GroupKind(size_t i) { return group_kind_[Find(i)]; }

  void Union(size_t a, size_t b) {
    a = Find(a), b = Find(b);
    if (a == b) return;
    parent_[a] = b;
    size_[b] += size_[a];
    group_kind_[b] = std::max(group_kind_[a], group_kind_[b]);
  }

  // The nodes on paths from src to sink (sink included, src not), if every one satisfies `ok(kind, is_sink)`;
  // nullopt otherwise. Topological positions bound the search: nothing after the sink leads to it.
  template <class Ok>
  std::optional<std::vector<size_t>> Path(size_t src, size_t sink, Ok ok) {
    std::vector<size_t> stack{src}, found;
    std::unordered_set<size_t> seen{src};
    while (!stack.empty()) {
      size_t u = stack.back();
      stack.pop_back();
      for (const sdk::Value& out : order_[u].Outputs()) {
        if (!out) continue;
        for (const sdk::Use& use : out.Consumers()) {
          const std::optional<size_t> at = Position(use.node);
          if (!at) return std::nullopt;
          const size_t v = *at;
          if (v > sink || !seen.insert(v).second) continue;
          if (!ok(GroupKind(v), v == sink)) return std::nullopt;
          found.push_back(v);
          if (v != sink) stack.push_back(v);
        }
      }
    }
    return found;
  }

  void Commit(size_t src, size_t sink, const std::vector<size_t>& path) {
    size_t total = size_[Find(sink)];
    std::unordered_set<size_t> groups{Find(sink)};
    for (size_t v : path)
      if (groups.insert(Find(v)).second) total += size_[Find(v)];
    if (groups.insert(Find(src)).second) total += size_[Find(src)];
    if (total > max_size_) return;
    // Two out-element-wise-fusable ops never share a group.
    int complex = 0;
    for (size_t g : groups) complex += group_kind_[g] == OpKind::kOutEWiseFusable;
    if (complex > 1) return;
    for (size_t v : path) Union(v, sink);
    Union(src, sink);
  }

  void Visit(size_t i, int phase) {
    if (kind_[i] == OpKind::kOpaque || dom_[i] < 0) return;
    size_t d = static_cast<size_t>(dom_[i]);
    if (Find(i) == Find(d) || kind_[d] == OpKind::kOpaque) return;
    const OpKind gk = GroupKind(i);
    if (phase == 2) {
      if (gk > OpKind::kBroadcast || GroupKind(d) != OpKind::kInjective) return;
      if (auto p = Path(i, d, [](OpKind k, bool) { return k <= OpKind::kInjective; })) Commit(i, d, *p);
      return;
    }
    if (gk == OpKind::kOutEWiseFusable) {
      if (phase != 0 || kind_[d] > OpKind::kBroadcast) return;
      if (auto p = Path(i, d, [](OpKind k, bool) { return k <= OpKind::kBroadcast; })) Commit(i, d, *p);
    } else if (gk <= OpKind::kBroadcast) {
      if (kind_[d] > OpKind::kInjective && kind_[d] != OpKind::kCommReduce) return;
      auto ok = [](OpKind k, bool sink) {
        return sink ? k != OpKind::kOpaque : k <= OpKind::kInjective;
      };
      if (auto p = Path(i, d, ok)) Commit(i, d, *p);
    } else if (gk == OpKind::kInjective) {
      if (phase != 1) return;
      if (auto p = Path(i, d, [](OpKind k, bool) { return k <= OpKind::kInjective; })) Commit(i, d, *p);
    }
  }

  std::vector<sdk::Node> order_;
  size_t max_size_;
  sdk::NodeTable<size_t> position_;  // each node's position plus one
  std::vector<size_t> parent_, size_;
  std::vector<OpKind> kind_, group_kind_;
  std::vector<int64_t> dom_;
};

std::string GroupName(const std::vector<sdk::Node>& nodes) {
  std::string name = "Auto";
  std::vector<std::string_view> ops;
  for (const sdk::Node& n : nodes)
    if (std::find(ops.begin(), ops.end(), n.OpType()) == ops.end()) ops.push_back(n.OpType());
  for (size_t i = 0; i < ops.size() && i < 4; ++i) name += "_" + std::string(ops[i]);
  return name;
}

std::string NodeLabel(const sdk::Node& n) {
  return n.Name().empty() ? std::string(n.OpType()) + "#" + std::to_string(n.Id()) : std::string(n.Name());
}

// The values a group computes that are read outside it (or are graph outputs), in topological order.
std::vector<sdk::Value> Exits(const std::vector<sdk::Node>& nodes) {
  std::unordered_set<KilnNode*> in_group;
  for (const sdk::Node& n : nodes) in_group.insert(n.raw());
  std::vector<sdk::Value> out;
  for (const sdk::Node& n : nodes)
    for (const sdk::Value& v : n.Outputs()) {
      if (!v) continue;
      bool escapes = v.IsGraphOutput();
      for (const sdk::Use& u : v.Consumers()) escapes = escapes || !in_group.count(u.node.raw());
      if (escapes) out.push_back(v);
    }
  return out;
}

}  // namespace

void AutoFusionPass::Run(sdk::PassContext& ctx, sdk::Graph graph) {
  std::string mode = ctx.OptionString("fusion.mode");
  if (mode != "auto" && mode != "both") return;
  const double threshold = ctx.OptionFloat("fusion.threshold");
  Partitioner partitioner(graph.TopoOrder(), static_cast<size_t>(std::max<int64_t>(2, ctx.OptionInt("fusion.maxGroupSize"))));
  partitioner.Run();
  CandidateLog log(ctx.OptionInt("fusion.reportLimit"), ctx.OptionString("fusion.report"));
  int64_t fused = 0, nodes_fused = 0, rejected = 0;
  for (const std::vector<sdk::Node>& group : partitioner.Groups()) {
    Candidate c;
    c.pass = "AutoFusionPass";
    c.rule = "auto";
    c.root = NodeLabel(group.back());
    for (const sdk::Node& n : group) c.nodes.push_back(NodeLabel(n));
    c.benefit = static_cast<int>(group.size());
    std::vector<sdk::Value> outputs = Exits(group);
    std::string why = outputs.empty() ? "nothing it computes is read" : GroupLegality(graph, group, outputs);
    if (why.empty()) {
      GroupCost cost = EstimateGroup(group);
      c.gain_seconds = cost.Gain();
      c.relative_gain = cost.RelativeGain();
      c.cost_model = cost.model;
      c.reason = cost.reason;
      if (!cost.feasible) why = "the target cannot run it as one kernel: " + cost.reason;
      else if (cost.RelativeGain() < threshold)
        why = "estimated gain " + std::to_string(cost.RelativeGain() * 100) + "% is below fusion.threshold";
    }
    if (!why.empty()) {
      c.decision = "rejected";
      c.reason = why;
      ++rejected;
      log.Note(c.rule, c.decision, [&] { return c; });
      continue;
    }
    sdk::OutlineSpec spec;
    spec.domain = std::string(kFusedDomain);
    spec.name = GroupName(group);
    spec.outputs = outputs;
    spec.flags = KILN_OUTLINE_REUSE_BODY | KILN_OUTLINE_ATTRIBUTES_BY_REFERENCE |
                 (outputs.size() == 1 ? uint32_t{KILN_OUTLINE_ASSUME_CONVEX} : 0u);
    spec.embed_constant_max_bytes = 16;
    spec.call_name = NodeLabel(group.back());
    sdk::Outline(graph, group, spec);
    ++fused;
    nodes_fused += static_cast<int64_t>(group.size());
    c.decision = "fused";
    log.Note(c.rule, c.decision, [&] { return c; });
    // The graph is whole between two groups, and the groups still to come are disjoint from this one: the host may
    // keep what is outlined and free the nodes it replaced (ABI 1.13).
    ctx.Checkpoint();
  }
  if (fused) ctx.AddCounter("groups_fused", fused), ctx.AddCounter("nodes_fused", nodes_fused);
  if (rejected) ctx.AddCounter("groups_rejected", rejected);
  log.Report(ctx, graph.OwnerModel());
}

}  // namespace kiln::fusion

KILN_PLUGIN_PART(AutoFusionPass) { reg.AddGraphPass<kiln::fusion::AutoFusionPass>(); }
