// Loading fusion rule packs: YAML text (a file of configs/fusion, a pack given with --fusion-pack, or one a plugin
// registered) into a RulePack. Every problem is one RuleError whose message starts with file:line:column: an
// unknown key, a missing pattern, a pattern or expression that does not parse (the column points into it), a
// predicate of the wrong type, a variable a predicate or action names that the pattern does not bind.
#pragma once

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "rule.h"

namespace kiln::fusion {

class RuleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `source` names the text in messages (a path, or "plugin:pack").
RulePack LoadRulePack(std::string_view yaml, const std::string& source);
RulePack LoadRulePackFile(const std::string& path);
// The packs of `paths`, in that order, read side by side on up to one thread per core: yaml-cpp reads about 3 MB/s,
// so the shipped packs alone take about 5 ms on one core, a tenth of a small model's compile. A failure is the first
// failing file's, in the order given, whatever order the threads met them in. max_threads > 0 caps the threads
// (1: this thread alone).
std::vector<RulePack> LoadRulePackFiles(const std::vector<std::string>& paths, size_t max_threads = 0);

// One reading of pack files shared by whichever threads join in: each thread in Work() takes the next file no thread
// has taken, largest first (the last file taken is then a short one), until none is left. A thread that needs the
// packs while helpers are still reading them calls Finish() and reads the rest beside them instead of waiting for
// them: an O2 compile of a one-node model had nothing else to do while one helper read all the shipped packs. The
// reading owns its helpers: the destructor waits for them, so none outlives the files and packs it works on.
class RulePackReading {
 public:
  explicit RulePackReading(std::vector<std::string> paths);
  ~RulePackReading();
  RulePackReading(const RulePackReading&) = delete;
  RulePackReading& operator=(const RulePackReading&) = delete;

  const std::vector<std::string>& paths() const { return paths_; }

  // Starts up to `n` helper threads on Work(), each off the caller's CPU (kiln_helper_thread.hpp); fewer when no
  // thread is to be had, and then Finish() reads what they would have.
  void StartHelpers(size_t n);
  // Reads files until none is left untaken; never throws (a file's error is kept for Finish).
  void Work();
  // Work(), then waits for the files other threads are still reading. The packs in the order of `paths`, or the
  // error of the first failing file in that order (a RuleError). Called once, by one thread.
  std::vector<RulePack> Finish();

 private:
  std::vector<std::string> paths_;
  std::vector<size_t> order_;  // indexes into paths_, largest file first
  std::vector<RulePack> packs_;
  std::vector<std::exception_ptr> errors_;
  std::atomic<size_t> next_{0};  // into order_
  std::mutex mu_;
  std::condition_variable all_read_;
  size_t read_ = 0;  // files finished, under mu_
  std::vector<std::thread> helpers_;
};

// Parses a rewrite's replacement (exposed for tests): Op{attr: value}(args), a variable, or $fn(args); attribute
// values are literals, $(expr) (a float), $int(expr) or @label.name (copied from a matched node).
std::unique_ptr<Replacement> ParseReplacement(std::string_view text);

}  // namespace kiln::fusion
