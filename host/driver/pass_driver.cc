#include "driver/pass_driver.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <algorithm>
#include <deque>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "driver/graph_fingerprint.h"
#include "driver/op_type_set.h"
#include "driver/pass_context.h"
#include "ir/model.h"
#include "ir/topo_order.h"
#include "support/error.h"
#include "support/logging.h"
#include "verify/verifier.h"

namespace kiln {
namespace {

std::string NodeLabel(const Node& n) { return "'" + n.name() + "' (" + n.op_type() + ")"; }

double Since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Throws (inside the call's transaction, so the call is rolled back) when the pass's time, with this call's
// `seconds`, is over `budget` (limits.passSeconds; 0: none). Marks the context so the pass sits out the walk.
void CheckTimeBudget(double budget, PassContext& ctx, double seconds, const char* where) {
  if (budget <= 0 || ctx.seconds_spent + seconds <= budget) return;
  ctx.over_time_budget = true;
  char buf[160];
  std::snprintf(buf, sizeof buf, "it spent %.6g s %s, over its time budget of %.6g s (option limits.passSeconds)",
                ctx.seconds_spent + seconds, where, budget);
  throw Error(ExitCode::kPlugin, buf);
}

std::string JoinNames(const std::set<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

// One walk over one graph.
class PassDriver::Walk {
 public:
  Walk(PassDriver& d, Graph& g, const std::vector<NodePass*>& passes, const std::vector<NodePass*>& after_walk,
       std::vector<PassContext>& contexts)
      : d_(d), g_(g), passes_(passes), after_walk_(after_walk), contexts_(contexts), nesting_(d.walks_running_) {
    all_ = passes_;
    all_.insert(all_.end(), after_walk_.begin(), after_walk_.end());
    for (NodePass* p : all_) stats_.push_back(d_.StatsIndex(p->name()));
    for (NodePass* p : passes_) op_types_.push_back(p->op_types());
  }
  // The marks this walk set go, so that the next walk of this graph (a subgraph is walked each time its node is)
  // starts from none. Node ids are never reused: a node deleted meanwhile keeps a harmless stale mark. The outermost
  // walk clears them all, keeping no list: the walks inside it are over, and its list would be 8 bytes per node of
  // the graph (the 1M-node chain's walks: 8 MB, 12 while the vector grew).
  ~Walk() {
    if (nesting_.outermost)
      std::fill(d_.marks_.begin(), d_.marks_.end(), uint8_t{0});
    else
      for (uint64_t id : touched_) d_.marks_[id] = 0;
  }

  bool Run() {
    start_nodes_ = g_.num_nodes();
    Sweep();
    size_t rounds = 0;
    for (;;) {
      while (!queue_.empty()) {
        Node* n = queue_.front();
        queue_.pop_front();
        Clear(n, kQueued);
        if (!n->is_deleted() && n->graph() == &g_) Visit(*n);
      }
      if (Sweep()) continue;
      if (!FinishGraph()) break;
      if (++rounds > 1000) throw InternalError("rewrite cycle: the after-walk hooks of " + AllPassNames() +
                                               " keep handing back nodes (1000 rounds)");
    }
    return changed_;
  }

 private:
  // Queues every unvisited node whose producers have all been visited: the sources at the start, and later any
  // node a pass created that no visit reached.
  bool Sweep() {
    std::vector<Node*> ready;
    for (const auto& n : g_.nodes())
      if (!Has(n.get(), kSeen | kQueued) && ProducersSeen(*n)) ready.push_back(n.get());
    // In position order, so a walk over an unchanged graph is deterministic.
    std::sort(ready.begin(), ready.end(), PositionBefore);
    for (Node* n : ready) Enqueue(n, false);
    return !ready.empty();
  }

  bool ProducersSeen(const Node& n) const {
    bool all = true;
    ForEachRead(n, [&](Node*, size_t, const Value* v) {
      if (Node* p = v->producer(); p && v->graph() == &g_) all = all && (Has(p, kSeen) || p->is_deleted());
    });
    return all;
  }

  void Enqueue(Node* n, bool front) {
    if (n->is_deleted() || n->graph() != &g_) return;
    if (Has(n, kQueued)) {
      if (!front) return;
      queue_.erase(std::find(queue_.begin(), queue_.end(), n));
    }
    Set(n, kQueued);
    if (front) queue_.push_front(n);
    else queue_.push_back(n);
  }

  void Visit(Node& n) {
    bool first = !Has(&n, kSeen);
    Set(&n, kSeen);
    if (first && n.has_subgraphs()) {
      for (Graph* sub : n.subgraphs()) changed_ |= Walk(d_, *sub, passes_, after_walk_, contexts_).Run();
    }
    for (size_t i = 0; i < passes_.size(); ++i) {
      if (n.is_deleted()) break;
      if (!passes_[i]->runs_on_nodes()) continue;
      // A pass is called on the op types it declares only; --verify-each calls it on the others too, to check that
      // it changes none of them (a declaration missing an op type would silently skip rewrites).
      const bool declared = !op_types_[i] || op_types_[i]->Contains(n);
      if (!declared && !d_.options_.verify_each) continue;
      bool changed = Call(i, [&] { return passes_[i]->Run(n, contexts_[i]); }, &n);
      if (changed && !declared)
        throw InternalError("verification failed after pass " + passes_[i]->name() + ": it changed node " +
                            NodeLabel(n) + ", whose op type is not among those it declares (KilnPassInfo.op_types)");
      if (changed) NoteChange(passes_[i]->name());
    }
    if (++d_.visits_ % 4096 == 0 && d_.options_.progress) d_.options_.progress(d_.visits_);
    if (!n.is_deleted()) {
      ForEachDependent(g_, &n, [&](Node* c) {
        if (!Has(c, kSeen) && ProducersSeen(*c)) Enqueue(c, false);
      });
    }
    // Re-pass requests go after the consumers just queued; immediate ones in front of everything.
    for (size_t i = 0; i < passes_.size(); ++i) TakeRequests(i);
  }

  // Runs `fn`, the call of pass `i` (of passes_ then after_walk_) on `node` (null: its after-walk hook).
  template <typename Fn>
  bool Call(size_t i, Fn&& fn, Node* node) {
    NodePass& pass = *all_[i];
    PassContext& ctx = contexts_[i];
    if (ctx.over_time_budget) return false;  // it went over limits.passSeconds earlier in this walk
    PassStats& st = d_.stats_[stats_[i]];
    Journal& j = d_.model_.journal();
    if (node) d_.model_.insertion_order = node->order();
    auto t0 = std::chrono::steady_clock::now();
    bool changed = false;
    double seconds = -1;  // read once on success: the clock is a measurable part of a call on a large graph
    j.Begin();
    try {
      changed = fn();
      seconds = Since(t0);
      CheckTimeBudget(d_.options_.pass_seconds, ctx, seconds, "in this walk");
      j.Commit();
    } catch (const std::exception& e) {
      j.Rollback();
      ctx.ClearRequests();
      std::string where = node ? "on node " + NodeLabel(*node) : "after the walk of graph '" + g_.name() + "'";
      std::string msg = "pass " + pass.name() + " failed " + where + ": " + e.what();
      if (ctx.over_time_budget && !d_.options_.strict) msg += " (the pass sits out the rest of this walk)";
      st.NoteFailure(msg);
      auto* ke = dynamic_cast<const Error*>(&e);
      if (ke && ke->code() == ExitCode::kConfig) throw Error(ExitCode::kConfig, msg);  // the user's config: stop
      if (d_.options_.strict) {
        throw Error(ke ? ke->code() : ExitCode::kInternal, msg + " (stopped: --strict)");
      }
      Logger("driver")->warn("{}; its change was rolled back and the compile goes on", msg);
    }
    if (seconds < 0) seconds = Since(t0);
    st.seconds += seconds;
    ctx.seconds_spent += seconds;
    if (node) ++st.runs;
    if (changed) {
      ++st.changes;
      if (d_.options_.verify_each && node) {
        auto issues = VerifyNode(*node);
        if (!issues.empty())
          throw InternalError("verification failed after pass " + pass.name() + " on node " + NodeLabel(*node) +
                              ": " + issues[0].message);
      }
      if (d_.options_.after_change) d_.options_.after_change(pass.name(), node);
    }
    return changed;
  }

  // Takes the re-pass requests of all_[i].
  void TakeRequests(size_t i) {
    PassContext& ctx = contexts_[i];
    auto& imm = ctx.immediate_requests();
    for (auto it = imm.rbegin(); it != imm.rend(); ++it) Repass(*it, i, true);
    for (Node* n : ctx.repass_requests()) Repass(n, i, false);
    ctx.ClearRequests();
  }

  void Repass(Node* n, size_t by, bool immediate) {
    if (n->is_deleted() || n->graph() != &g_) return;
    Repassed& r = repassed_[n];
    r.by |= RequesterBit(by);
    if (++r.count > d_.options_.max_repass_per_node)
      throw InternalError("rewrite cycle: node " + NodeLabel(*n) + " was re-passed " + std::to_string(r.count - 1) +
                          " times without settling; re-pass requested by " + Requesters(r.by));
    // A node not yet visited will be visited anyway, unless an immediate re-pass asks for it now.
    if (!Has(n, kSeen) && !immediate) return;
    Enqueue(n, immediate);
  }

  // The passes that asked for a node's re-passes, a bit each by place in all_; the last bit stands for the passes
  // from the 64th on (more than a walk has).
  static uint64_t RequesterBit(size_t i) { return uint64_t{1} << std::min<size_t>(i, 63); }
  std::string Requesters(uint64_t bits) const {
    std::set<std::string> names;
    for (size_t i = 0; i < all_.size(); ++i)
      if (bits & RequesterBit(i)) names.insert(all_[i]->name());
    return JoinNames(names);
  }

  void NoteChange(const std::string& pass) {
    changed_ = true;
    ++changes_;
    recent_.push_back(pass);
    if (recent_.size() > 256) recent_.pop_front();
    if (changes_ > 10 * start_nodes_ + 1000)
      throw InternalError("rewrite cycle: " + std::to_string(changes_) + " rewrites on " +
                          std::to_string(start_nodes_) + " nodes without reaching a fixed point; recent rewrites by " +
                          JoinNames({recent_.begin(), recent_.end()}));
    if (changes_ <= 2 * start_nodes_ + 100) return;
    // Suspicious amount of work: look for a graph state seen before.
    uint64_t fp = StructuralFingerprint(g_);
    auto [it, inserted] = states_.emplace(fp, history_.size());
    history_.push_back(pass);
    if (!inserted) {
      std::set<std::string> involved(history_.begin() + static_cast<ptrdiff_t>(it->second) + 1, history_.end());
      throw InternalError("rewrite cycle: graph '" + g_.name() + "' came back to an earlier state after " +
                          std::to_string(history_.size() - it->second - 1) + " rewrites by " + JoinNames(involved));
    }
  }

  // Runs the after-walk hooks; true when the walk must go on. Called only after a Sweep that found nothing: when no
  // hook changed the graph or handed a node back, another Sweep (a scan of every node) would find nothing either.
  bool FinishGraph() {
    bool requeued = false, changed_any = false;
    for (size_t i = 0; i < all_.size(); ++i) {
      PassContext& ctx = contexts_[i];
      bool changed = Call(i, [&] { return all_[i]->OnFinishGraph(g_, ctx); }, nullptr);
      size_t before = queue_.size();
      TakeRequestsAfterWalk(i);
      requeued |= queue_.size() > before;
      changed_any |= changed;
      if (changed) {
        NoteChange(all_[i]->name());
        uint64_t fp = StructuralFingerprint(g_);
        if (!round_states_.insert(fp).second && queue_.size() > before)
          throw InternalError("rewrite cycle: graph '" + g_.name() + "' came back to an earlier state in the "
                              "after-walk hook of " + all_[i]->name());
      }
    }
    return requeued || (changed_any && Sweep());
  }

  void TakeRequestsAfterWalk(size_t i) {
    PassContext& ctx = contexts_[i];
    // After the walk both kinds of request simply go back on the queue.
    for (auto* list : {&ctx.immediate_requests(), &ctx.repass_requests()})
      for (Node* n : *list) {
        Enqueue(n, false);
        repassed_[n].by |= RequesterBit(i);
      }
    ctx.ClearRequests();
  }

  std::string AllPassNames() const {
    std::set<std::string> s;
    for (auto* p : passes_) s.insert(p->name());
    for (auto* p : after_walk_) s.insert(p->name());
    return JoinNames(s);
  }

  PassDriver& d_;
  Graph& g_;
  const std::vector<NodePass*>& passes_;
  const std::vector<NodePass*>& after_walk_;
  std::vector<PassContext>& contexts_;
  // A node's walk state, kept in the driver's marks_ by node id (a hash set per state cost a tenth of a large
  // graph's walk): seen (visited once) and queued.
  static constexpr uint8_t kSeen = 1, kQueued = 2;
  bool Has(const Node* n, uint8_t bits) const {
    const uint64_t id = n->id();
    return id < d_.marks_.size() && (d_.marks_[id] & bits) != 0;
  }
  void Set(const Node* n, uint8_t bit) {
    const uint64_t id = n->id();
    if (id >= d_.marks_.size()) d_.marks_.resize(std::max<uint64_t>(id + 1, 2 * d_.marks_.size()));
    if (d_.marks_[id] == 0 && !nesting_.outermost) touched_.push_back(id);
    d_.marks_[id] |= bit;
  }
  void Clear(const Node* n, uint8_t bit) {
    if (n->id() < d_.marks_.size()) d_.marks_[n->id()] &= static_cast<uint8_t>(~bit);
  }

  std::vector<NodePass*> all_;  // passes_, then after_walk_: the order of contexts_
  std::vector<size_t> stats_;   // for each of all_, its place in the driver's stats
  std::vector<const OpTypeSet*> op_types_;  // for each of passes_, the op types it runs on; null: all
  // Counts the driver's running walks while this one lives; outermost: no other was running, and this one clears
  // every mark when it ends.
  struct Nesting {
    explicit Nesting(uint32_t& running) : running(running), outermost(running++ == 0) {}
    ~Nesting() { --running; }
    uint32_t& running;
    const bool outermost;
  } nesting_;
  std::vector<uint64_t> touched_;  // the ids whose marks this walk set; kept by the walks inside another only
  std::deque<Node*> queue_;
  // Per node handed back: how many times, and by which passes (RequesterBit), for the rewrite-cycle message. A
  // set of names each took some 200 bytes a node: folding the generated 1M-node foldchain hands back 250,000.
  struct Repassed {
    size_t count = 0;
    uint64_t by = 0;
  };
  std::unordered_map<Node*, Repassed> repassed_;
  size_t start_nodes_ = 0, changes_ = 0;
  bool changed_ = false;
  std::deque<std::string> recent_;
  std::unordered_map<uint64_t, size_t> states_;
  std::vector<std::string> history_;
  std::unordered_set<uint64_t> round_states_;
};

PassDriver::PassDriver(Model& model, DriverOptions options) : model_(model), options_(std::move(options)) {}
PassDriver::~PassDriver() = default;

size_t PassDriver::StatsIndex(const std::string& name) {
  for (size_t i = 0; i < stats_.size(); ++i)
    if (stats_[i].name == name) return i;
  stats_.push_back(PassStats{name});
  return stats_.size() - 1;
}

PassStats& PassDriver::StatsFor(const std::string& name) { return stats_[StatsIndex(name)]; }

bool PassDriver::RunNodePasses(const std::vector<NodePass*>& passes, const std::vector<NodePass*>& after_walk) {
  std::vector<PassContext> contexts;
  std::vector<std::string> names;
  for (auto* p : passes) contexts.emplace_back(model_, Logger(p->name())), names.push_back(p->name());
  for (auto* p : after_walk) contexts.emplace_back(model_, Logger(p->name())), names.push_back(p->name());
  bool changed = Walk(*this, model_.graph(), passes, after_walk, contexts).Run();
  for (size_t i = 0; i < names.size(); ++i) {
    for (const auto& [k, v] : contexts[i].counters()) StatsFor(names[i]).counters[k] += v;
    for (auto& [k, v] : contexts[i].reports()) PassContext::MergeReport(StatsFor(names[i]).reports[k], std::move(v));
  }
  model_.CollectGarbage();
  if (options_.verify_each) VerifyModelOrThrow(model_, "after the walk of " + JoinNames({names.begin(), names.end()}),
                                                 options_.known_issues.get());
  if (options_.after_step) options_.after_step(names);
  return changed;
}

namespace {

bool RunOnGraphTree(GraphPass& pass, Graph& g, PassContext& ctx) {
  bool changed = false;
  std::vector<Graph*> subs;
  if (g.holds_subgraphs())
    for (const auto& n : g.nodes())
      for (Graph* s : n->subgraphs()) subs.push_back(s);
  for (Graph* s : subs) changed |= RunOnGraphTree(pass, *s, ctx);
  return pass.Run(g, ctx) || changed;
}

}  // namespace

bool PassDriver::RunGraphPass(GraphPass& pass) {
  PassStats& st = StatsFor(pass.name());
  PassContext ctx(model_, Logger(pass.name()));
  ctx.checkpoints_allowed = !options_.verify_each;
  Journal& j = model_.journal();
  auto t0 = std::chrono::steady_clock::now();
  bool changed = false;
  j.Begin();
  try {
    changed = RunOnGraphTree(pass, model_.graph(), ctx);
    CheckTimeBudget(options_.pass_seconds, ctx, Since(t0), "in this run");
    j.Commit();
  } catch (const std::exception& e) {
    j.Rollback();
    changed = ctx.checkpoints > 0;  // what it kept at its checkpoints stays
    std::string msg = "pass " + pass.name() + " failed: " + e.what();
    st.NoteFailure(msg);
    auto* ke = dynamic_cast<const Error*>(&e);
    if (ke && ke->code() == ExitCode::kConfig) throw Error(ExitCode::kConfig, msg);  // the user's config: stop
    if (options_.strict) {
      throw Error(ke ? ke->code() : ExitCode::kInternal, msg + " (stopped: --strict)");
    }
    const std::string undone = changed ? "its changes since the last of its " + std::to_string(ctx.checkpoints) +
                                             " checkpoints were rolled back, those before kept"
                                       : "its change was rolled back";
    Logger("driver")->warn("{}; {} and the compile goes on", msg, undone);
  }
  if (ctx.checkpoints) ctx.AddCounter("checkpoints", static_cast<int64_t>(ctx.checkpoints));
  st.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ++st.runs;
  if (changed) ++st.changes;
  for (const auto& [k, v] : ctx.counters()) st.counters[k] += v;
  for (auto& [k, v] : ctx.reports()) PassContext::MergeReport(st.reports[k], std::move(v));
  model_.CollectGarbage();
  if (options_.verify_each) VerifyModelOrThrow(model_, "after pass " + pass.name(), options_.known_issues.get());
  if (options_.after_step) options_.after_step({pass.name()});
  return changed;
}

}  // namespace kiln
