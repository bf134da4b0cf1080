// The rules a fusion pass runs: the built-in packs (every configs/fusion/*.yaml of the host's configuration
// folder, unless fusion.builtinPacks is false), the packs named by fusion.packs (`kiln compile --fusion-pack FILE`,
// a pipeline's `fusion_packs:`), and the packs plugins registered; less the rules fusion.disabledRules names.
// Indexed by the op type of each rule's root. Packs are parsed once per distinct set of sources and kept.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "rule.h"

namespace kiln::fusion {

class RuleSet {
 public:
  const std::vector<const Rule*>& RulesFor(std::string_view op_type) const;
  const std::vector<RulePack>& packs() const { return packs_; }
  size_t size() const { return count_; }

  // Loads (or finds loaded) what the options of the running pass name. A pack that does not load is an sdk::Error
  // with KILN_STATUS_CONFIG_ERROR and file:line:column (the compile stops with exit code 3).
  static std::shared_ptr<const RuleSet> ForPass(sdk::PassContext& ctx);
  // Starts reading the built-in packs on a thread of their own (PatternFusionPass::Prepare, before the model is
  // read); the next ForPass whose built-in packs are the same files, unchanged, takes them from there, errors
  // included. Does nothing when a read is already in flight, or no thread is to be had.
  static void PrefetchBuiltinPacks();

 private:
  std::vector<RulePack> packs_;
  std::map<std::string, std::vector<const Rule*>, std::less<>> by_root_;
  size_t count_ = 0;
};

}  // namespace kiln::fusion
