// The rules a fusion pass runs: the built-in packs (every configs/fusion/*.yaml of the host's configuration
// folder, unless fusion.builtinPacks is false), the packs named by fusion.packs (`kiln compile --fusion-pack FILE`,
// a pipeline's `fusion_packs:`), and the packs plugins registered; less the rules fusion.disabledRules names.
// Indexed by the op type of each rule's root. Packs are parsed once per distinct set of sources and kept.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "rule.h"
#include "rule_loader.h"

namespace kiln::fusion {

// The built-in packs read ahead, on a thread of their own, for the pass that owns this (PatternFusionPass::Prepare):
// the next RuleSet::ForPass whose built-in packs are the same files, unchanged, takes them, errors included, and
// reads beside the helper whatever files it has not begun (RulePackReading). A reading not taken waits for its
// helper when it goes: the pass is destroyed before its plugin unloads, so the read never outlives the code and the
// statics it uses.
class PackPrefetch {
 public:
  PackPrefetch() = default;
  PackPrefetch(const PackPrefetch&) = delete;
  PackPrefetch& operator=(const PackPrefetch&) = delete;

  // Starts the read, unless one is in flight or not yet taken. Without a thread to be had, Take reads them all.
  void Start();
  // The packs read ahead when they are those of `key` (RuleSet's key of the built-in files); nothing otherwise.
  // Rethrows the reading's RuleError, as reading them then would have.
  std::optional<std::vector<RulePack>> Take(const std::string& key);

 private:
  std::mutex mu_;
  std::string key_;
  std::unique_ptr<RulePackReading> reading_;  // with its helper, until taken
};

class RuleSet {
 public:
  const std::vector<const Rule*>& RulesFor(std::string_view op_type) const;
  const std::vector<RulePack>& packs() const { return packs_; }
  size_t size() const { return count_; }

  // Loads (or finds loaded) what the options of the running pass name. A pack that does not load is an sdk::Error
  // with KILN_STATUS_CONFIG_ERROR and file:line:column (the compile stops with exit code 3).
  // `ahead`: the built-in packs read ahead, taken when they match (may be null).
  static std::shared_ptr<const RuleSet> ForPass(sdk::PassContext& ctx, PackPrefetch* ahead = nullptr);

 private:
  std::vector<RulePack> packs_;
  std::map<std::string, std::vector<const Rule*>, std::less<>> by_root_;
  size_t count_ = 0;
};

}  // namespace kiln::fusion
