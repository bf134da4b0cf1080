#include "api/report_summary.h"

#include <cstdint>
#include <sstream>

namespace kiln {

std::string ReportSummaryText(const nlohmann::json& r) {
  std::ostringstream out;
  out << "kiln: " << r.value("level", std::string("?")) << ": " << r.value("nodes_before", 0) << " -> "
      << r.value("nodes_after", 0) << " nodes in "
      << (r.contains("seconds") ? r["seconds"].value("total", 0.0) : 0.0) << " s";
  // The process's peak resident memory once the model was written (none where the system did not tell).
  const uint64_t peak = r.contains("memory") ? r["memory"]["peak_rss_bytes"].value("write", uint64_t{0}) : 0;
  if (peak != 0) out << ", peak RSS " << (peak + (uint64_t{1} << 19)) / (uint64_t{1} << 20) << " MB";
  out << "\n";
  if (!r.contains("stages")) return out.str();
  for (const auto& st : r["stages"]) {
    out << "  " << st["name"].get<std::string>() << ":";
    bool any = false;
    for (const auto& p : st["passes"]) {
      if (p["changes"].get<uint64_t>() == 0 && p["failures"].get<uint64_t>() == 0) continue;
      out << " " << p["name"].get<std::string>() << " " << p["changes"] << " changes";
      if (p["failures"].get<uint64_t>()) out << " (" << p["failures"] << " failed)";
      any = true;
    }
    out << (any ? "" : " no changes") << "\n";
  }
  return out.str();
}

}  // namespace kiln
