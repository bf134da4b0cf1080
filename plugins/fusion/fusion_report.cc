#include "fusion_report.h"

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>
#include <fstream>
#include <map>
#include <sstream>

namespace kiln::fusion {
namespace {

// JSON string escaping, by nlohmann_json (linked by this plugin itself, like yaml-cpp).
std::string Quote(std::string_view s) {
  // Names from a model may be any bytes: invalid UTF-8 becomes U+FFFD rather than an exception.
  return nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

void CandidateLog::Report(sdk::PassContext& ctx, sdk::Model model) const {
  if (counts_.empty()) return;
  const std::vector<Candidate>& candidates = kept_;
  const std::string& path = path_;
  const int64_t limit = limit_;
  std::string summary = "[";
  for (const auto& [key, n] : counts_)
    summary += (summary.size() > 1 ? "," : "") + std::string("{\"rule\":") + Quote(key.first) +
               ",\"decision\":" + Quote(key.second) + ",\"count\":" + std::to_string(n) + "}";
  ctx.AddReport("candidate_summary", summary + "]");
  std::string json = "[";
  const size_t shown = std::min(candidates.size(), static_cast<size_t>(std::max<int64_t>(limit, 0)));
  for (size_t i = 0; i < shown; ++i) {
    const Candidate& c = candidates[i];
    json += i ? "," : "";
    json += "{\"pass\":" + Quote(c.pass) + ",\"rule\":" + Quote(c.rule) + ",\"pack\":" + Quote(c.pack) +
            ",\"root\":" + Quote(c.root) + ",\"nodes\":[";
    for (size_t j = 0; j < c.nodes.size(); ++j) json += (j ? "," : "") + Quote(c.nodes[j]);
    json += "],\"decision\":" + Quote(c.decision) + ",\"reason\":" + Quote(c.reason) +
            ",\"benefit\":" + std::to_string(c.benefit) + ",\"gain_seconds\":" + Number(c.gain_seconds) +
            ",\"relative_gain\":" + Number(c.relative_gain) + ",\"cost_model\":" + Quote(c.cost_model) + "}";
  }
  json += "]";
  if (shown) ctx.AddReport("candidates", json);
  if (path.empty()) return;
  // One file per compile: the first pass to write it for a model starts it afresh, later ones append.
  static std::map<std::string, KilnModel*> started;
  auto [it, fresh] = started.emplace(path, model.raw());
  bool truncate = fresh || it->second != model.raw();
  it->second = model.raw();
  std::ofstream out(path, truncate ? std::ios::trunc : std::ios::app);
  if (!out) throw sdk::Error("fusion.report: cannot write '" + path + "'", KILN_STATUS_CONFIG_ERROR);
  for (const Candidate& c : candidates) {
    out << c.pass << "  " << c.rule << (c.pack.empty() ? "" : " (" + c.pack + ")") << "  at " << c.root << "  "
        << c.decision;
    if (!c.reason.empty()) out << ": " << c.reason;
    out << "\n    nodes: ";
    for (size_t j = 0; j < c.nodes.size(); ++j) out << (j ? ", " : "") << c.nodes[j];
    out << "\n    benefit " << c.benefit << ", estimated gain " << Number(c.gain_seconds * 1e6) << " us ("
        << Number(c.relative_gain * 100) << "%, " << c.cost_model << ")\n";
  }
}

}  // namespace kiln::fusion
