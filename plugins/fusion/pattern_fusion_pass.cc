// PatternFusionPass: see pattern_fusion_pass.h.
#include "pattern_fusion_pass.h"

#include <kiln/kiln_node_table.hpp>
#include <kiln/kiln_plugin_parts.hpp>

#include <algorithm>
#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <unordered_map>
#include <unordered_set>

#include "cost_model.h"
#include "fusion_report.h"
#include "legality.h"
#include "matcher.h"
#include "rewrite.h"
#include "rule_set.h"

namespace kiln::fusion {
namespace {

std::string NodeLabel(const sdk::Node& n) {
  return n.Name().empty() ? std::string(n.OpType()) + "#" + std::to_string(n.Id()) : std::string(n.Name());
}

// A kept candidate: its rule, root and nodes (in the round's pool, Acceptor::NodesOf), and for a rewrite or a fused
// group with extra outputs the whole match (ApplyRewrite reads its variables; FusedOutputs, the extra outputs'). A
// round of the generated 1M-node chain keeps 333,333 fused groups: a whole match each (three vectors) took 43 MB of
// the pass's peak, this takes 19.
struct Found {
  const Rule* rule = nullptr;
  sdk::Node root;
  uint32_t first = 0, count = 0;  // its nodes: pool[first, first + count)
  uint32_t exits = 0;              // fuse: the call's outputs (FusedOutputs) when it was found
  std::unique_ptr<Match> full;
};

// Frees what a candidate holds once nothing reads it (applied, or dropped from the cycle check): memory given back
// while the groups are applied is memory they can reuse.
void Release(Found& f) { f.full.reset(); }

// The kept candidate holding each node of the graph, by node id (sdk::NodeTable): a hash map from node to candidate
// took 40 MB of the pass's peak on the generated 1M-node chain (333,333 groups kept over a million nodes).
using TakenNodes = sdk::NodeTable<const Found*>;

Candidate Describe(const Rule& rule, const sdk::Node& root, std::span<const sdk::Node> nodes) {
  Candidate c;
  c.pass = "PatternFusionPass";
  c.rule = rule.name;
  c.pack = rule.pack;
  c.root = NodeLabel(root);
  for (const sdk::Node& n : nodes) c.nodes.push_back(NodeLabel(n));
  c.benefit = rule.benefit;
  return c;
}

// A variable of `m` bound to a value that an accepted rewrite replaces, with that rewrite; {"", nullptr} if none.
// Fused groups need no such check: outlining reads the nodes' inputs as they are when it runs.
std::pair<std::string, const Found*> BoundReplacedValue(const Match& m,
                                                        const std::unordered_map<KilnValue*, const Found*>& replaced) {
  for (const auto& [name, value] : m.vars)
    if (auto it = value ? replaced.find(value.raw()) : replaced.end(); it != replaced.end()) return {*name, it->second};
  return {"", nullptr};
}

// Decides the round's candidates as they are found: best benefit first, then graph order, then the rules' order at
// one root, each kept when it overlaps no kept one and is legal (and feasible on the target). The caller finds them
// in that order (one walk of the graph per benefit, highest first; RulesFor lists a node's rules best first), so
// only the kept ones are held: a large graph has a match at most nodes, most of them overlapping a better one, and
// holding every match to rank them all was most of the pass's peak (the generated 1M-node chain: 666,666 matches,
// 333,333 kept). Nothing is applied until the round's candidates are all decided, so the graph they are checked
// against is the one they were found in.
class Acceptor {
 public:
  Acceptor(sdk::Graph graph, const std::vector<sdk::Node>& order, bool with_target, CandidateLog& log,
           int64_t& rejected)
      : graph_(graph), with_target_(with_target), log_(log), rejected_(rejected), taken_(order) {
    // Kept candidates never share a node (Consider rejects an overlap), so their nodes are at most the graph's: one
    // allocation of that size, where growing by doubling held up to three times the final pool at a reallocation
    // (the generated 100k-node chain's peak heap at O2: 55.1 -> 53.5 MB, heaptrack).
    pool_.reserve(order.size());
  }

  void Consider(Match&& m) {
    const Rule& rule = *m.rule;
    const Found* overlap = nullptr;
    for (const sdk::Node& n : m.nodes)
      if (const Found* by = taken_.Get(n)) overlap = by;
    std::string why;
    GroupCost cost;
    bool estimated = false;
    size_t exits = 0;
    if (overlap) {
      why = "overlaps rule " + overlap->rule->name + " (benefit " + std::to_string(overlap->rule->benefit) + ") at " +
            NodeLabel(overlap->root);
    } else if (rule.action == Rule::Action::kFuse) {
      const std::vector<sdk::Value> outputs = FusedOutputs(m);
      exits = outputs.size();
      why = GroupLegality(graph_, m.nodes, outputs);
      if (why.empty() && with_target_) {
        cost = EstimateGroup(m.nodes);
        estimated = true;
        if (!cost.feasible) why = "the target cannot run it as one kernel: " + cost.reason;
      }
    } else if (const auto [name, other] = BoundReplacedValue(m, replaced_); other) {
      why = "reads '" + name + "', which rule " + other->rule->name + " rewrites at " + NodeLabel(other->root) +
            " in this round (tried again in the next)";
    } else {
      why = GroupLegality(graph_, m.nodes, {m.root.Output(0)});
      if (why.empty()) why = CheckRewrite(m);
    }
    const std::string decision = !why.empty() ? "rejected" : rule.action == Rule::Action::kFuse ? "fused" : "rewritten";
    log_.Note(rule.name, decision, [&] {
      Candidate c = Describe(rule, m.root, m.nodes);
      c.decision = decision;
      c.reason = why;
      if (!estimated && why.empty() && rule.action == Rule::Action::kFuse) cost = EstimateGroup(m.nodes), estimated = true;
      if (estimated) {
        c.gain_seconds = cost.Gain();
        c.relative_gain = cost.RelativeGain();
        c.cost_model = cost.model;
        if (why.empty()) c.reason = cost.reason;
      }
      return c;
    });
    if (!why.empty()) {
      ++rejected_;
      return;
    }
    Found& kept = accepted_.emplace_back();  // a deque: kept candidates never move
    kept.rule = &rule;
    kept.root = m.root;
    kept.first = static_cast<uint32_t>(pool_.size());
    kept.count = static_cast<uint32_t>(m.nodes.size());
    kept.exits = static_cast<uint32_t>(exits);
    pool_.insert(pool_.end(), m.nodes.begin(), m.nodes.end());
    for (const sdk::Node& n : m.nodes) taken_.Set(n, &kept);
    if (rule.action == Rule::Action::kRewrite)
      for (const sdk::Node& n : m.nodes)
        for (const sdk::Value& out : n.Outputs())
          if (out) replaced_.emplace(out.raw(), &kept);
    if (rule.action == Rule::Action::kRewrite || !rule.extra_outputs.empty())
      kept.full = std::make_unique<Match>(std::move(m));
  }

  // The kept candidates, in the order they were kept. The maps of what is taken go first.
  std::deque<Found>& Kept() {
    taken_ = TakenNodes();
    replaced_ = {};
    return accepted_;
  }
  std::span<const sdk::Node> NodesOf(const Found& f) const { return {pool_.data() + f.first, f.count}; }
  // The match to apply: the whole one where kept, else made again from the rule, root and nodes (all ApplyFuse reads).
  Match MatchOf(Found& f) const {
    if (f.full) return std::move(*f.full);
    Match m;
    m.rule = f.rule;
    m.root = f.root;
    const std::span<const sdk::Node> nodes = NodesOf(f);
    m.nodes.assign(nodes.begin(), nodes.end());
    return m;
  }

 private:
  sdk::Graph graph_;
  bool with_target_;
  CandidateLog& log_;
  int64_t& rejected_;
  TakenNodes taken_;
  // The outputs of the nodes of accepted rewrites: each goes when its rewrite is applied (its readers are moved to
  // the rewrite's result), so a rewrite applied after it must not have bound one.
  std::unordered_map<KilnValue*, const Found*> replaced_;
  std::deque<Found> accepted_;
  std::vector<sdk::Node> pool_;  // the kept candidates' nodes, in the order kept
};

// The rules' distinct benefits, highest first.
std::vector<int> Benefits(const RuleSet& rules) {
  std::vector<int> out;
  for (const RulePack& pack : rules.packs())
    for (const Rule& r : pack.rules) out.push_back(r.benefit);
  std::sort(out.begin(), out.end(), std::greater<>());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

std::vector<sdk::OptionSpec> PatternFusionPass::Options() { return {}; }

void PatternFusionPass::Prepare() { prefetch_.Start(); }

void PatternFusionPass::Run(sdk::PassContext& ctx, sdk::Graph graph) {
  if (ctx.OptionString("fusion.mode") == "auto") return;
  std::shared_ptr<const RuleSet> rules = RuleSet::ForPass(ctx, &prefetch_);
  if (rules->size() == 0) return;
  const int64_t opset = graph.OpsetVersion("");
  const int64_t rounds = ctx.OptionInt("fusion.maxRounds");
  const bool with_target = KILN_HOST_HAS(&sdk::Host(), target_active) && sdk::Host().target_active() != nullptr;
  const std::vector<int> benefits = Benefits(*rules);
  CandidateLog log(ctx.OptionInt("fusion.reportLimit"), ctx.OptionString("fusion.report"));
  int64_t fused = 0, rewritten = 0, rejected = 0, nodes_fused = 0;
  for (int64_t round = 0; round < rounds; ++round) {
    std::vector<sdk::Node> order = graph.TopoOrder();
    // The rules tried at each node, best first, looked up once for all the benefits' walks.
    std::vector<const std::vector<const Rule*>*> tried_at(order.size());
    for (size_t i = 0; i < order.size(); ++i) tried_at[i] = &rules->RulesFor(order[i].OpType());
    Acceptor acceptor(graph, order, with_target, log, rejected);
    for (const int benefit : benefits)
      for (size_t i = 0; i < order.size(); ++i) {
        const std::vector<const Rule*>& tried = *tried_at[i];
        auto it = std::find_if(tried.begin(), tried.end(), [&](const Rule* r) { return r->benefit == benefit; });
        if (it == tried.end()) continue;
        const RootOperands operands(order[i]);
        for (; it != tried.end() && (*it)->benefit == benefit; ++it)
          if (operands.MayMatch(**it))
            if (std::optional<Match> m = MatchRule(**it, order[i], opset)) acceptor.Consider(std::move(*m));
      }
    // Neither the order nor the rules tried at each node is read again this round: their 16 bytes a node go before
    // the groups are applied, when the graph holds the new calls beside the nodes they replace.
    std::vector<const std::vector<const Rule*>*>().swap(tried_at);
    std::vector<sdk::Node>().swap(order);
    std::deque<Found>& kept = acceptor.Kept();
    std::vector<Found*> accepted;
    accepted.reserve(kept.size());
    for (Found& f : kept) accepted.push_back(&f);
    // Groups with more than one exit could close a cycle between calls: drop the weakest of each.
    std::vector<std::vector<sdk::Node>> multi;
    std::vector<double> priority;
    std::vector<Found*> multi_found;
    for (Found* f : accepted)
      if (f->rule->action == Rule::Action::kFuse && f->exits > 1) {
        const std::span<const sdk::Node> nodes = acceptor.NodesOf(*f);
        multi.emplace_back(nodes.begin(), nodes.end());
        priority.push_back(f->rule->benefit);
        multi_found.push_back(f);
      }
    if (!multi.empty()) {
      for (size_t i : GroupsMakingCycles(graph, multi, priority)) {
        accepted.erase(std::find(accepted.begin(), accepted.end(), multi_found[i]));
        const std::string why = "fusing it with the other groups would make a cycle between the calls";
        const Found& dropped = *multi_found[i];
        log.Note(dropped.rule->name, "rejected", [&] {
          Candidate c = Describe(*dropped.rule, dropped.root, acceptor.NodesOf(dropped));
          c.decision = "rejected";
          c.reason = why;
          return c;
        });
        Release(*multi_found[i]);
        ++rejected;
      }
    }
    if (accepted.empty()) break;
    for (Found* f : accepted) {
      const Match m = acceptor.MatchOf(*f);
      if (f->rule->action == Rule::Action::kFuse) {
        ApplyFuse(m, graph);
        ++fused;
        nodes_fused += static_cast<int64_t>(f->count);
      } else {
        ApplyRewrite(m, graph);
        ++rewritten;
      }
      Release(*f);
      // The graph is whole between two groups: the host may keep what is applied and free the nodes it replaced
      // (ABI 1.13). Nothing here holds a handle of a removed node: `order` is gone, and the groups still to apply
      // are disjoint from the applied ones.
      ctx.Checkpoint();
    }
  }
  if (fused) ctx.AddCounter("groups_fused", fused), ctx.AddCounter("nodes_fused", nodes_fused);
  if (rewritten) ctx.AddCounter("rewrites", rewritten);
  if (rejected) ctx.AddCounter("candidates_rejected", rejected);
  log.Report(ctx, graph.OwnerModel());
}


}  // namespace kiln::fusion

KILN_PLUGIN_PART(PatternFusionPass) { reg.AddGraphPass<kiln::fusion::PatternFusionPass>(); }
