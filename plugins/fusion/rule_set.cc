#include "rule_set.h"

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <optional>
#include <set>
#include <system_error>

#include "rule_loader.h"

namespace kiln::fusion {
namespace {

std::vector<std::string> SplitList(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == ';' || c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (c != ' ' || !cur.empty()) {
      cur += c;
    }
  }
  while (!cur.empty() && cur.back() == ' ') cur.pop_back();
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::vector<std::string> BuiltinPackFiles() {
  std::vector<std::string> files;
  if (!KILN_HOST_HAS(&sdk::Host(), host_config_dir)) return files;
  std::filesystem::path dir = std::filesystem::path(sdk::Host().host_config_dir()) / "fusion";
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".yaml") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

// Each file with its modification time: a cache key that changes when a file does.
std::string FilesKey(const std::vector<std::string>& files) {
  std::string key;
  for (const std::string& f : files) {
    std::error_code ec;
    auto t = std::filesystem::last_write_time(f, ec);
    key += f + "@" + std::to_string(ec ? 0 : t.time_since_epoch().count()) + "\n";
  }
  return key;
}

}  // namespace

void PackPrefetch::Start() {
  std::vector<std::string> files = BuiltinPackFiles();
  if (files.empty()) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (reading_) return;
  reading_ = std::make_unique<RulePackReading>(std::move(files));
  key_ = FilesKey(reading_->paths());
  // One helper, while the main thread reads the model: beside it, not on its CPU.
  reading_->StartHelpers(1);
}

std::optional<std::vector<RulePack>> PackPrefetch::Take(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!reading_ || key_ != key) return std::nullopt;
  const std::unique_ptr<RulePackReading> reading = std::move(reading_);  // its helper joined as it goes
  return reading->Finish();
}

const std::vector<const Rule*>& RuleSet::RulesFor(std::string_view op_type) const {
  static const std::vector<const Rule*> kNone;
  auto it = by_root_.find(op_type);
  return it == by_root_.end() ? kNone : it->second;
}

std::shared_ptr<const RuleSet> RuleSet::ForPass(sdk::PassContext& ctx, PackPrefetch* ahead_of_time) {
  std::vector<std::string> builtin;
  if (ctx.OptionBool("fusion.builtinPacks")) builtin = BuiltinPackFiles();
  std::vector<std::string> given = SplitList(ctx.OptionString("fusion.packs"));
  std::vector<sdk::RegisteredRulePack> registered = sdk::RegisteredFusionRulePacks();
  std::vector<std::string> disabled = SplitList(ctx.OptionString("fusion.disabledRules"));
  // The key: every source and what it says (files by path and modification time).
  const std::string builtin_key = FilesKey(builtin);
  std::string key = builtin_key + FilesKey(given);
  for (const auto& p : registered) key += "plugin:" + std::string(p.name) + "#" + std::to_string(p.yaml.size()) + "\n";
  for (const std::string& d : disabled) key += "-" + d + "\n";
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const RuleSet>> cache;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache.find(key); it != cache.end()) return it->second;

  auto set = std::make_shared<RuleSet>();
  try {
    // The built-in packs (read ahead, or here), then the given ones: the first failing file in that order is the
    // error.
    std::optional<std::vector<RulePack>> ahead;
    if (!builtin.empty() && ahead_of_time) ahead = ahead_of_time->Take(builtin_key);
    set->packs_ = ahead ? std::move(*ahead) : LoadRulePackFiles(builtin);
    for (RulePack& pack : LoadRulePackFiles(given)) set->packs_.push_back(std::move(pack));
    for (const auto& p : registered) {
      std::string source = p.source_name.empty() ? "plugin pack " + std::string(p.name) : std::string(p.source_name);
      set->packs_.push_back(LoadRulePack(p.yaml, source));
    }
  } catch (const RuleError& e) {
    throw sdk::Error(e.what(), KILN_STATUS_CONFIG_ERROR);
  }
  std::set<std::string> seen;
  std::set<std::string> known_disabled;
  for (const RulePack& pack : set->packs_) {
    for (const Rule& r : pack.rules) {
      if (!seen.insert(r.name).second)
        throw sdk::Error(r.pos.ToString() + ": rule '" + r.name + "' is defined by another pack too", KILN_STATUS_CONFIG_ERROR);
      if (std::find(disabled.begin(), disabled.end(), r.name) != disabled.end()) {
        known_disabled.insert(r.name);
        continue;
      }
      for (const std::string& op : RootOpTypes(*r.pattern)) set->by_root_[op].push_back(&r);
      ++set->count_;
    }
  }
  for (const std::string& d : disabled)
    if (!known_disabled.count(d))
      throw sdk::Error("fusion.disabledRules: no loaded pack has a rule '" + d + "'", KILN_STATUS_CONFIG_ERROR);
  // Higher benefit first: overlaps keep the better rule (and equal ones the earlier pack's).
  for (auto& [op, rules] : set->by_root_)
    std::stable_sort(rules.begin(), rules.end(), [](const Rule* a, const Rule* b) { return a->benefit > b->benefit; });
  cache[key] = set;
  return set;
}

}  // namespace kiln::fusion
