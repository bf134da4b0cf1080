// PatternFusionPass: see pattern_fusion_pass.h.
#include "pattern_fusion_pass.h"

#include <kiln/kiln_plugin_parts.hpp>

#include <algorithm>
#include <deque>
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

struct Found {
  Match match;
  size_t root_pos = 0;
  size_t seq = 0;  // place among the round's matches: at one root, the rules' order
  std::vector<sdk::Value> outputs;  // fuse: the call's outputs
};

// Frees what a candidate holds once nothing reads it (rejected and noted, or applied): on a large graph the round's
// matches are a good part of the pass's peak, and memory given back while the groups are applied is memory they
// can reuse.
void Release(Found& f) {
  f.match = Match{};
  f.outputs = {};
}

Candidate Describe(const Found& f) {
  Candidate c;
  c.pass = "PatternFusionPass";
  c.rule = f.match.rule->name;
  c.pack = f.match.rule->pack;
  c.root = NodeLabel(f.match.root);
  for (const sdk::Node& n : f.match.nodes) c.nodes.push_back(NodeLabel(n));
  c.benefit = f.match.rule->benefit;
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

// The candidates kept: the best of overlapping ones that is legal (and feasible on the target), best benefit
// first. The ranking and the maps of what is taken go when it returns, before anything is applied.
std::vector<Found*> Accept(std::deque<Found>& found, sdk::Graph graph, bool with_target, CandidateLog& log,
                           int64_t& rejected) {
  std::vector<Found*> ranked;
  ranked.reserve(found.size());
  for (Found& f : found) ranked.push_back(&f);
  // Best benefit first, then graph order, then the rules' order at one root.
  std::sort(ranked.begin(), ranked.end(), [](const Found* a, const Found* b) {
    if (a->match.rule->benefit != b->match.rule->benefit) return a->match.rule->benefit > b->match.rule->benefit;
    return a->seq < b->seq;  // seq grows with root_pos
  });
  std::unordered_map<KilnNode*, const Found*> taken;
  // The outputs of the nodes of accepted rewrites: each goes when its rewrite is applied (its readers are moved to
  // the rewrite's result), so a rewrite applied after it must not have bound one.
  std::unordered_map<KilnValue*, const Found*> replaced;
  std::vector<Found*> accepted;
  for (Found* fp : ranked) {
    Found& f = *fp;
    const Rule& rule = *f.match.rule;
    const Found* overlap = nullptr;
    for (const sdk::Node& n : f.match.nodes)
      if (auto it = taken.find(n.raw()); it != taken.end()) overlap = it->second;
    std::string why;
    GroupCost cost;
    bool estimated = false;
    if (overlap) {
      why = "overlaps rule " + overlap->match.rule->name + " (benefit " + std::to_string(overlap->match.rule->benefit) +
            ") at " + NodeLabel(overlap->match.root);
    } else if (rule.action == Rule::Action::kFuse) {
      f.outputs = FusedOutputs(f.match);
      why = GroupLegality(graph, f.match.nodes, f.outputs);
      if (why.empty() && with_target) {
        cost = EstimateGroup(f.match.nodes);
        estimated = true;
        if (!cost.feasible) why = "the target cannot run it as one kernel: " + cost.reason;
      }
    } else if (const auto [name, other] = BoundReplacedValue(f.match, replaced); other) {
      why = "reads '" + name + "', which rule " + other->match.rule->name + " rewrites at " +
            NodeLabel(other->match.root) + " in this round (tried again in the next)";
    } else {
      why = GroupLegality(graph, f.match.nodes, {f.match.root.Output(0)});
      if (why.empty()) why = CheckRewrite(f.match);
    }
    const std::string decision = !why.empty() ? "rejected" : rule.action == Rule::Action::kFuse ? "fused" : "rewritten";
    log.Note(rule.name, decision, [&] {
      Candidate c = Describe(f);
      c.decision = decision;
      c.reason = why;
      if (!estimated && why.empty() && rule.action == Rule::Action::kFuse) cost = EstimateGroup(f.match.nodes), estimated = true;
      if (estimated) {
        c.gain_seconds = cost.Gain();
        c.relative_gain = cost.RelativeGain();
        c.cost_model = cost.model;
        if (why.empty()) c.reason = cost.reason;
      }
      return c;
    });
    if (!why.empty()) {
      ++rejected;
      Release(f);  // an overlap names the accepted candidate, never this one
      continue;
    }
    for (const sdk::Node& n : f.match.nodes) taken[n.raw()] = &f;
    if (rule.action == Rule::Action::kRewrite)
      for (const sdk::Node& n : f.match.nodes)
        for (const sdk::Value& out : n.Outputs())
          if (out) replaced.emplace(out.raw(), &f);
    accepted.push_back(&f);
  }
  return accepted;
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
  CandidateLog log(ctx.OptionInt("fusion.reportLimit"), ctx.OptionString("fusion.report"));
  int64_t fused = 0, rewritten = 0, rejected = 0, nodes_fused = 0;
  for (int64_t round = 0; round < rounds; ++round) {
    std::vector<sdk::Node> order = graph.TopoOrder();
    // A deque, and a sort of pointers: a large graph has a match at most nodes, and a vector's doubling (or a
    // stable sort's buffer) would hold every match twice at the pass's peak.
    std::deque<Found> found;
    for (size_t i = 0; i < order.size(); ++i) {
      const std::vector<const Rule*>& tried = rules->RulesFor(order[i].OpType());
      if (tried.empty()) continue;
      const RootOperands operands(order[i]);
      for (const Rule* rule : tried)
        if (operands.MayMatch(*rule))
          if (std::optional<Match> m = MatchRule(*rule, order[i], opset)) found.push_back({std::move(*m), i, found.size(), {}});
    }
    std::vector<Found*> accepted = Accept(found, graph, with_target, log, rejected);
    // Groups with more than one exit could close a cycle between calls: drop the weakest of each.
    std::vector<std::vector<sdk::Node>> multi;
    std::vector<double> priority;
    std::vector<Found*> multi_found;
    for (Found* f : accepted)
      if (f->match.rule->action == Rule::Action::kFuse && f->outputs.size() > 1) {
        multi.push_back(f->match.nodes);
        priority.push_back(f->match.rule->benefit);
        multi_found.push_back(f);
      }
    if (!multi.empty()) {
      for (size_t i : GroupsMakingCycles(graph, multi, priority)) {
        accepted.erase(std::find(accepted.begin(), accepted.end(), multi_found[i]));
        const std::string why = "fusing it with the other groups would make a cycle between the calls";
        log.Note(multi_found[i]->match.rule->name, "rejected", [&] {
          Candidate c = Describe(*multi_found[i]);
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
      if (f->match.rule->action == Rule::Action::kFuse) {
        ApplyFuse(f->match, graph);
        ++fused;
        nodes_fused += static_cast<int64_t>(f->match.nodes.size());
      } else {
        ApplyRewrite(f->match, graph);
        ++rewritten;
      }
      Release(*f);
      // The graph is whole between two groups: the host may keep what is applied and free the nodes it replaced
      // (ABI 1.13). Nothing here holds a handle of a removed node: `order` is not read again this round, and the
      // groups still to apply are disjoint from the applied ones.
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
