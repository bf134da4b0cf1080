// The fusion diagnostics (seed 001's report): every candidate a fusion pass considered, with its rule (or "auto"),
// its nodes, the decision, the reason and the estimated gain. Attached to the compile report (reports.candidates of
// the pass) and, with fusion.report set (`kiln compile --fusion-report FILE`), written as text.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kiln::fusion {

struct Candidate {
  std::string pass;      // PatternFusionPass or AutoFusionPass
  std::string rule;      // the rule's name, or "auto"
  std::string pack;      // the rule's pack
  std::string root;      // the root node's name
  std::vector<std::string> nodes;
  std::string decision;  // fused, rewritten, rejected
  std::string reason;    // why rejected; the cost model's note otherwise
  int benefit = 0;
  double gain_seconds = 0, relative_gain = 0;
  std::string cost_model;
};

// The candidates of one pass run: each is counted (rule, decision); its details are made (a callable, so that a
// pass with thousands of candidates does not pay for strings nobody reads) only for the first `limit` and, when
// fusion.report names a file, for all of them.
class CandidateLog {
 public:
  CandidateLog(int64_t limit, std::string path) : limit_(limit), path_(std::move(path)) {}

  template <class Details>
  void Note(const std::string& rule, const std::string& decision, Details&& details) {
    ++counts_[{rule, decision}];
    if (!path_.empty() || static_cast<int64_t>(kept_.size()) < limit_) kept_.push_back(details());
  }
  // Attaches the first `limit` under "candidates" and the counts under "candidate_summary" to the pass's report
  // entry, and writes every kept candidate to the text file (started afresh by the first pass of a compile).
  void Report(sdk::PassContext& ctx, sdk::Model model) const;

 private:
  int64_t limit_;
  std::string path_;
  std::map<std::pair<std::string, std::string>, int64_t> counts_;
  std::vector<Candidate> kept_;
};

}  // namespace kiln::fusion
