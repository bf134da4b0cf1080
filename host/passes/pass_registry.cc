#include "passes/pass_registry.h"

#include <algorithm>

#include "support/error.h"

namespace kiln {

bool PassRegistry::Add(PassInfo info) {
  auto it = passes_.find(info.name);
  if (it != passes_.end()) {
    shadowed_.push_back({info.name, info.owner, it->second.owner});
    return false;
  }
  std::string name = info.name;
  passes_.emplace(std::move(name), std::move(info));
  return true;
}

const PassInfo* PassRegistry::Find(std::string_view name) const {
  auto it = passes_.find(name);
  return it == passes_.end() ? nullptr : &it->second;
}

std::vector<const PassInfo*> PassRegistry::All() const {
  std::vector<const PassInfo*> out;
  for (const auto& [_, p] : passes_) out.push_back(&p);
  return out;
}

std::vector<std::string> PassRegistry::PassNames() const {
  std::vector<std::string> out;
  for (const auto& [n, _] : passes_) out.push_back(n);
  return out;
}

bool PassRegistry::IsGraphPass(std::string_view name) const {
  const PassInfo* p = Find(name);
  return p != nullptr && p->kind == PassInfo::Kind::kGraph;
}

std::string PassRegistry::SwitchOptionOf(std::string_view pass) const {
  const PassInfo* p = Find(pass);
  return p ? p->switch_option : std::string();
}

std::string PassRegistry::CheckArg(std::string_view pass, std::string_view key, std::string_view value) const {
  const PassInfo* p = Find(pass);
  if (p == nullptr) return "";
  for (const PassArgDef& a : p->args) {
    if (a.name != key) continue;
    if (a.allowed.empty() || std::find(a.allowed.begin(), a.allowed.end(), value) != a.allowed.end()) return "";
    std::string s = "'" + std::string(value) + "' is not one of:";
    for (size_t i = 0; i < a.allowed.size(); ++i) s += (i ? ", " : " ") + a.allowed[i];
    return s;
  }
  std::string known;
  for (const PassArgDef& a : p->args) known += (known.empty() ? "" : ", ") + a.name;
  return "unknown argument '" + std::string(key) + "' for " + std::string(pass) +
         (known.empty() ? std::string(" (it takes none)") : " (it takes: " + known + ")");
}

PassArgs PassRegistry::CompleteArgs(const PassInfo& info,
                                    const std::vector<std::pair<std::string, std::string>>& given) const {
  PassArgs args;
  for (const PassArgDef& a : info.args) args[a.name] = a.default_value;
  for (const auto& [k, v] : given) {
    std::string problem = CheckArg(info.name, k, v);
    if (!problem.empty()) throw ConfigError("pass " + info.name + ": " + problem);
    args[k] = v;
  }
  return args;
}

}  // namespace kiln
