// The node-pass driver, with GE's BaseNodePass semantics: a Kahn-order walk from the sources runs every pass on
// each node; a pass may ask for a node's re-pass (after what is queued) or immediate re-pass (next); deleted
// nodes are skipped; when nothing is queued each pass's OnFinishGraph may hand nodes back, and the walk goes on
// until nothing is queued. A node holding subgraphs has them walked (by the driver, not the passes) before
// the passes see the node itself. Each pass call is a transaction: a call that throws is rolled back, and the
// compile goes on with a warning (or stops, when strict).
//
// Where GE caps the work at 10 x the node count and only warns, Kiln looks for the cycle: a node re-passed more
// than `max_repass_per_node` times, or (past 2 x the node count in changes) a graph state that comes back, stops
// the compile with an error naming the passes involved.
//
// Time: a pass that spends more than `pass_seconds` in one walk (or one graph-pass run) fails when the call that
// took it over returns, as if it had thrown: that call is rolled back (a graph pass: all of it) with a warning
// naming limits.passSeconds, and a node pass sits out the rest of the walk. A call that never returns is not
// interrupted.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "driver/pass.h"
#include "verify/verifier.h"

namespace kiln {

class Graph;
class Model;
class Node;

struct PassStats {
  static constexpr size_t kMaxFailureMessages = 8;
  void NoteFailure(std::string message) {
    ++failures;
    if (failure_messages.size() < kMaxFailureMessages) failure_messages.push_back(std::move(message));
  }

  std::string name;
  uint64_t runs = 0;      // calls (node visits for a node pass)
  uint64_t changes = 0;   // calls that changed the graph
  uint64_t failures = 0;  // calls that threw and were rolled back
  std::vector<std::string> failure_messages;  // the first kMaxFailureMessages of them, as logged
  double seconds = 0;
  std::map<std::string, int64_t> counters;  // the pass's own counters
  std::map<std::string, nlohmann::json> reports;  // structured entries the pass attached (pass_add_report)
};

struct DriverOptions {
  bool verify_each = false;  // verify after every pass (locally after each changing call, fully after each walk), and
                             // call node passes on the op types they do not declare too, failing if one changes any
  // What verify_each leaves out: the input's own issues (IssueText), found before the first pass (may be null).
  std::shared_ptr<const IssueSet> known_issues;
  bool strict = false;       // a failing pass call stops the compile instead of being rolled back and skipped
  size_t max_repass_per_node = 100;
  // Called after each walk or graph pass with the names of the passes that ran, for --dump-after.
  std::function<void(const std::vector<std::string>& passes)> after_step;
  // Called every few thousand node visits, for progress display.
  std::function<void(uint64_t visits)> progress;
  // Seconds one pass may spend in one walk, or a graph pass in one run (limits.passSeconds); 0: no limit. A pass
  // call that takes its pass over is rolled back and fails as a throwing call does (a warning, or an error with
  // exit code 4 under `strict`); a node pass then sits out the rest of the walk.
  double pass_seconds = 0;
  // Called after every kept node-pass call that changed the graph, with the pass's name and the node it ran on
  // (null for an after-walk hook), while the walk goes on (kiln bisect checks the numerics there).
  std::function<void(const std::string& pass, const Node* node)> after_change;
};

class PassDriver {
 public:
  PassDriver(Model& model, DriverOptions options);
  ~PassDriver();

  // One walk of these node passes over the top graph (and every subgraph). `after_walk` passes take part only
  // through OnFinishGraph. Returns true when anything changed.
  bool RunNodePasses(const std::vector<NodePass*>& passes, const std::vector<NodePass*>& after_walk = {});
  // Runs a graph pass on every subgraph (innermost first) and then the top graph.
  bool RunGraphPass(GraphPass& pass);

  // Statistics per pass name, in first-run order.
  const std::vector<PassStats>& stats() const { return stats_; }
  uint64_t visits() const { return visits_; }

 private:
  class Walk;
  size_t StatsIndex(const std::string& name);  // stats_ grows during a walk: a walk keeps indices, not references
  PassStats& StatsFor(const std::string& name);

  Model& model_;
  DriverOptions options_;
  std::vector<PassStats> stats_;
  std::vector<uint8_t> marks_;  // the running walks' node states, by node id (Walk)
  uint32_t walks_running_ = 0;  // nested: a node holding subgraphs has them walked inside its own walk
  uint64_t visits_ = 0;
};

}  // namespace kiln
