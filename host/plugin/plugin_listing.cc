// `kiln plugins` data as JSON and as text; see plugin_listing.h.
#include "plugin/plugin_listing.h"

#include <nlohmann/json.hpp>

namespace kiln::plugin {

nlohmann::json PluginsToJson(const PluginSet& set) {
  nlohmann::json out;
  out["host_abi"] = AbiVersionText(KILN_ABI_VERSION);
  out["search_path"] = nlohmann::json::array();
  for (const auto& dir : set.SearchDirectories()) out["search_path"].push_back(dir.string());
  out["plugins"] = nlohmann::json::array();
  out["shadowed"] = nlohmann::json::array();
  for (const auto& p : set.plugins()) {
    nlohmann::json j = {{"name", p->name},
                        {"version", p->version},
                        {"abi_version", AbiVersionText(p->abi_version)},
                        {"negotiated_abi", AbiVersionText(p->negotiated_version)},
                        {"file", p->file},
                        {"origin", p->origin},
                        {"description", p->description}};
    j["registered"] = nlohmann::json::array();
    for (const Registration& r : p->registrations) {
      nlohmann::json rj = {{"kind", KindName(r.kind)}, {"name", r.name}, {"detail", r.detail}};
      if (!r.shadowed_by.empty()) {
        rj["shadowed_by"] = r.shadowed_by;
        out["shadowed"].push_back(
            {{"kind", KindName(r.kind)}, {"name", r.name}, {"plugin", p->name}, {"kept_from", r.shadowed_by}});
      }
      j["registered"].push_back(std::move(rj));
    }
    j["fusion_rules"] = nlohmann::json::array();
    for (const FusionRulePack& pack : p->fusion_rules)
      j["fusion_rules"].push_back({{"name", pack.name}, {"source", pack.source_name}, {"bytes", pack.yaml.size()}});
    j["targets"] = nlohmann::json::array();
    for (const auto& t : p->targets) j["targets"].push_back(t->name);
    out["plugins"].push_back(std::move(j));
  }
  out["skipped"] = nlohmann::json::array();
  for (const SkippedPlugin& s : set.skipped())
    out["skipped"].push_back({{"file", s.file}, {"origin", s.origin}, {"reason", s.reason}});
  return out;
}

std::string PluginsToText(const PluginSet& set) {
  std::string out;
  if (set.plugins().empty()) out += "no plugins loaded\n";
  for (const auto& p : set.plugins()) {
    out += p->name + " " + p->version + "  (ABI " + AbiVersionText(p->abi_version);
    if (p->negotiated_version != p->abi_version) out += ", speaking " + AbiVersionText(p->negotiated_version);
    out += ")  " + p->file + "  [" + p->origin + "]\n";
    if (!p->description.empty()) out += "    " + p->description + "\n";
    if (p->registrations.empty()) out += "    (registered nothing)\n";
    for (const Registration& r : p->registrations) {
      std::string kind = KindName(r.kind);
      kind.resize(std::max<size_t>(kind.size(), 12), ' ');
      out += "    " + kind + " " + r.name;
      if (!r.detail.empty()) out += "  " + r.detail;
      if (!r.shadowed_by.empty()) out += "  [shadowed by " + r.shadowed_by + "'s: first wins]";
      out += "\n";
    }
  }
  for (const SkippedPlugin& s : set.skipped()) out += "skipped " + s.file + " [" + s.origin + "]: " + s.reason + "\n";
  out += "search path:";
  auto dirs = set.SearchDirectories();
  if (dirs.empty()) out += " (none)";
  for (const auto& dir : dirs) out += " " + dir.string();
  out += "\n";
  return out;
}

nlohmann::json TargetsToJson(const PluginSet& set) {
  nlohmann::json out = {{"targets", nlohmann::json::array()}, {"shadowed", nlohmann::json::array()}};
  for (const auto& t : set.DescribedTargets()) {
    nlohmann::json details = nullptr;
    if (!t->details_json.empty()) details = nlohmann::json::parse(t->details_json, nullptr, false);  // checked
    out["targets"].push_back({{"name", t->name},
                              {"plugin", t->plugin},
                              {"file", t->file},
                              {"plugin_abi", AbiVersionText(t->plugin_abi)},
                              {"usable", !t->bare && t->describe_error.empty()},
                              {"description", t->description},
                              {"engines", t->engines},
                              {"formats", t->formats},
                              {"details", details}});
    if (!t->describe_error.empty()) out["targets"].back()["error"] = t->describe_error;
  }
  for (const auto& p : set.plugins())
    for (const Registration& r : p->registrations)
      if (r.kind == Registration::Kind::kTarget && !r.shadowed_by.empty())
        out["shadowed"].push_back({{"name", r.name}, {"plugin", p->name}, {"kept_from", r.shadowed_by}});
  return out;
}

std::string TargetsToText(const PluginSet& set) {
  auto join = [](const std::vector<std::string>& items) {
    std::string s;
    for (const std::string& i : items) s += (s.empty() ? "" : ", ") + i;
    return s.empty() ? std::string("(none listed)") : s;
  };
  std::string out;
  auto targets = set.DescribedTargets();
  if (targets.empty()) {
    std::string loaded;
    for (const auto& p : set.plugins()) loaded += (loaded.empty() ? "" : ", ") + p->name;
    out += "no targets registered (loaded plugins: " + (loaded.empty() ? std::string("none") : loaded) + ")\n";
  }
  for (const auto& t : targets) {
    out += t->name + "  (plugin " + t->plugin + ", ABI " + AbiVersionText(t->plugin_abi) + ")  " + t->file + "\n";
    if (t->bare) {
      out += "    registered by name only (before ABI 1.3): no engines or cost model, cannot be --target\n";
      continue;
    }
    if (!t->description.empty()) out += "    " + t->description + "\n";
    if (!t->describe_error.empty()) {
      out += "    cannot be used: " + t->describe_error + "\n";
      continue;
    }
    out += "    engines: " + join(t->engines) + "\n";
    out += "    formats: " + join(t->formats) + "\n";
  }
  for (const auto& p : set.plugins())
    for (const Registration& r : p->registrations)
      if (r.kind == Registration::Kind::kTarget && !r.shadowed_by.empty())
        out += "shadowed: target " + r.name + " of plugin " + p->name + " (" + r.shadowed_by +
               "'s is kept: first wins)\n";
  return out;
}

}  // namespace kiln::plugin
