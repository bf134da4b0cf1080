// What a running pass may ask of the driver: re-pass requests, counters and its logger. One context serves one
// pass call; the driver reads the requests after the call returns (and drops them if the call failed).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include <spdlog/logger.h>

namespace kiln {

class Model;
class Node;

class PassContext {
 public:
  PassContext(Model& model, std::shared_ptr<spdlog::logger> log) : model_(model), log_(std::move(log)) {}

  Model& model() { return model_; }
  spdlog::logger& log() { return *log_; }

  // Visit `n` again after the nodes already queued.
  void RequestRepass(Node* n) { repass_.push_back(n); }
  // Visit `n` next, before anything else queued.
  void RequestImmediateRepass(Node* n) { immediate_.push_back(n); }
  // Adds to a named counter of the running pass ("nodes_folded"); the report lists them.
  void AddCounter(std::string_view name, int64_t delta) { counters_[std::string(name)] += delta; }
  // Attaches structured data to the running pass's report entry under "reports"/key (see MergeReport).
  void AddReport(const std::string& key, nlohmann::json value) { MergeReport(reports_[key], std::move(value)); }
  // Two arrays concatenate; anything else replaces.
  static void MergeReport(nlohmann::json& into, nlohmann::json value) {
    if (into.is_array() && value.is_array()) {
      for (auto& v : value) into.push_back(std::move(v));
    } else {
      into = std::move(value);
    }
  }

  // ---- read by the driver
  std::vector<Node*>& repass_requests() { return repass_; }
  std::vector<Node*>& immediate_requests() { return immediate_; }
  std::map<std::string, int64_t>& counters() { return counters_; }
  std::map<std::string, nlohmann::json>& reports() { return reports_; }
  void ClearRequests() {
    repass_.clear();
    immediate_.clear();
  }
  // Seconds the pass spent in this walk so far, and whether it went over its time budget (it then sits out the
  // rest of the walk).
  double seconds_spent = 0;
  bool over_time_budget = false;
  // A graph pass may keep its changes part-way (ABI 1.13 pass_checkpoint) when the driver allows it (not under
  // --verify-each, which undoes and reports a pass whole); how many such checkpoints it kept.
  bool checkpoints_allowed = false;
  uint64_t checkpoints = 0;

 private:
  Model& model_;
  std::shared_ptr<spdlog::logger> log_;
  std::vector<Node*> repass_, immediate_;
  std::map<std::string, int64_t> counters_;
  std::map<std::string, nlohmann::json> reports_;
};

}  // namespace kiln
