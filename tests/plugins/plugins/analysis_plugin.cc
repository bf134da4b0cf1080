// Analysis test plugin, with the C++ wrapper: AnalysisProbePass (a graph pass, top graph only) asks every host
// analysis slot of ABI 1.2 about the graph and reports the answers as pass counters, for tests/analysis's
// analysis_cli_test to compare with what was worked out by hand. Nodes are named by their first output.
//
//   index.N           N's topological index           idom.N / ipostdom.N   that node's index, -1 for none
//   dominates.N       bit i set when N dominates the node of index i (likewise postdominates.N, reaches.N)
//   topo.count, topo.same_as_nodes, null.reads_nothing, convex.* (fixed sets, with witnesses), sub.* (the last
//   node of the first subgraph of the first node that has one), after.* (after the change below)
//
// It declares KILN_ANALYSIS_DOMINATORS preserved, then rewires the input of the node whose output is named `t`
// to the output of `a` (when both exist), which does change dominance: the after.* counters show the kept
// dominator tree (stale, as declared) next to the recomputed post-dominator tree and topological order, and
// reachability, which is always searched on the graph as it is.
#include <kiln/kiln_plugin.hpp>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace sdk = kiln::sdk;

std::string NameOf(sdk::Node n) { return n.OutputCount() ? std::string(n.Output(0).Name()) : std::string(n.OpType()); }
int64_t IndexOf(sdk::Node n) { return n ? n.TopoIndex() : -1; }

class AnalysisProbePass final : public sdk::GraphPass {
 public:
  static constexpr std::string_view kName = "AnalysisProbePass";
  static constexpr std::string_view kDescription = "reports the host analyses as counters";
  static constexpr uint32_t kPreservedAnalyses = KILN_ANALYSIS_DOMINATORS;

  void Run(sdk::PassContext& ctx, sdk::Graph graph) override {
    if (graph.ParentNode()) return;
    std::vector<sdk::Node> order = graph.TopoOrder();
    ctx.AddCounter("topo.count", static_cast<int64_t>(order.size()));
    ctx.AddCounter("topo.same_as_nodes", order == graph.Nodes() ? 1 : 0);
    std::map<std::string, sdk::Node> by_name;
    for (sdk::Node n : order) by_name[NameOf(n)] = n;

    for (sdk::Node n : order) {
      const std::string name = NameOf(n);
      ctx.AddCounter("index." + name, n.TopoIndex());
      ctx.AddCounter("idom." + name, IndexOf(n.ImmediateDominator()));
      ctx.AddCounter("ipostdom." + name, IndexOf(n.ImmediatePostDominator()));
      int64_t dominates = 0, postdominates = 0, reaches = 0;
      for (sdk::Node m : order) {
        const int64_t bit = int64_t{1} << m.TopoIndex();
        if (n.Dominates(m)) dominates |= bit;
        if (n.PostDominates(m)) postdominates |= bit;
        if (n.Reaches(m)) reaches |= bit;
      }
      ctx.AddCounter("dominates." + name, dominates);
      ctx.AddCounter("postdominates." + name, postdominates);
      ctx.AddCounter("reaches." + name, reaches);
    }

    // A null handle reads as nothing.
    const sdk::Node none;
    const bool nothing = none.TopoIndex() == -1 && !none.ImmediateDominator() && !none.ImmediatePostDominator() &&
                         !none.Dominates(none) && !none.PostDominates(none) && !none.Reaches(none) &&
                         (order.empty() || (!none.Reaches(order[0]) && !order[0].Dominates(none)));
    ctx.AddCounter("null.reads_nothing", nothing ? 1 : 0);

    Convexity(ctx, "b_c", by_name, {"b", "c"});
    Convexity(ctx, "d_i", by_name, {"d", "i"});
    Convexity(ctx, "a_d", by_name, {"a", "d"});
    Convexity(ctx, "all", by_name, {"a", "b", "c", "d", "s", "cnd", "i", "t", "y"});
    ctx.AddCounter("convex.empty", sdk::AreConvex({}) ? 1 : 0);

    // A node of a subgraph: its own graph's analyses; nothing relates it to the outer nodes.
    for (sdk::Node n : order) {
      if (n.SubgraphCount() == 0) continue;
      std::vector<sdk::Node> inner = n.Subgraph(0).TopoOrder();
      if (inner.empty()) break;
      sdk::Node s = inner.back();
      ctx.AddCounter("sub.count", static_cast<int64_t>(inner.size()));
      ctx.AddCounter("sub.index", s.TopoIndex());
      ctx.AddCounter("sub.idom", IndexOf(s.ImmediateDominator()));
      ctx.AddCounter("sub.ipostdom", IndexOf(s.ImmediatePostDominator()));
      ctx.AddCounter("sub.related_to_outer", n.Dominates(s) || s.PostDominates(n) || n.Reaches(s) || s.Reaches(n));
      sdk::Node outside, inside;
      bool convex = sdk::AreConvex({n, s}, &outside, &inside);
      ctx.AddCounter("sub.cross_graph_refused", !convex && !outside && !inside ? 1 : 0);
      break;
    }

    auto a = by_name.find("a"), t = by_name.find("t");
    if (a == by_name.end() || t == by_name.end()) return;
    t->second.SetInput(0, a->second.Output(0));
    ctx.AddCounter("after.rewired");
    for (const char* name : {"t", "d"}) {
      auto it = by_name.find(name);
      if (it == by_name.end()) continue;
      sdk::Node n = it->second;
      ctx.AddCounter("after.index." + NameOf(n), n.TopoIndex());
      ctx.AddCounter("after.idom." + NameOf(n), IndexOf(n.ImmediateDominator()));
      ctx.AddCounter("after.ipostdom." + NameOf(n), IndexOf(n.ImmediatePostDominator()));
    }
    if (auto d = by_name.find("d"); d != by_name.end()) {
      ctx.AddCounter("after.reaches_d_t", d->second.Reaches(t->second) ? 1 : 0);
      ctx.AddCounter("after.reaches_a_t", a->second.Reaches(t->second) ? 1 : 0);
    }
  }

 private:
  static void Convexity(sdk::PassContext& ctx, const std::string& key, const std::map<std::string, sdk::Node>& by_name,
                        const std::vector<std::string>& names) {
    std::vector<sdk::Node> set;
    for (const std::string& n : names) {
      auto it = by_name.find(n);
      if (it == by_name.end()) return;
      set.push_back(it->second);
    }
    sdk::Node outside, inside;
    bool convex = sdk::AreConvex(set, &outside, &inside);
    ctx.AddCounter("convex." + key, convex ? 1 : 0);
    ctx.AddCounter("convex." + key + ".outside", IndexOf(outside));
    ctx.AddCounter("convex." + key + ".inside", IndexOf(inside));
  }
};

}  // namespace

KILN_PLUGIN("analysis_probe", "1.0.0", "reports the host analyses as pass counters") {
  reg.AddGraphPass<AnalysisProbePass>();
}
