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
    j["targets"] = p->targets;
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

}  // namespace kiln::plugin
