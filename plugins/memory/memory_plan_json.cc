// JSON text of the memory plan; see memory_plan_json.h. Strings are escaped by nlohmann_json, which this plugin links.
#include "memory_plan_json.h"

#include <cstdio>

#include <nlohmann/json.hpp>
#include <string_view>

namespace kiln::memory {
namespace {

std::string Quote(std::string_view s) {
  // Names from a model may be any bytes: invalid UTF-8 becomes U+FFFD rather than an exception.
  return nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string Field(std::string_view key, uint64_t v) { return Quote(key) + ":" + std::to_string(v); }
std::string Field(std::string_view key, int64_t v) { return Quote(key) + ":" + std::to_string(v); }
std::string Field(std::string_view key, std::string_view v) { return Quote(key) + ":" + Quote(v); }

// The name of the graph that holds the value.
std::string_view GraphName(const LiveValue& v) { return v.value.OwnerGraph().Name(); }

std::string Common(const MemoryPlan& plan) {
  std::string s = Field("algorithm", plan.arena.algorithm) + "," + Field("order", plan.order) + "," +
                  Field("arena_bytes", plan.arena.arena) + "," + Field("lower_bound_bytes", plan.lower_bound) + "," +
                  Field("peak_live_bytes", plan.peak_live_bytes) + "," +
                  Field("intermediate_bytes", plan.live.intermediate_bytes) + "," +
                  Field("original_order_lower_bound_bytes", plan.original_lower_bound) + ",\"planners\":{";
  for (size_t i = 0; i < plan.tried.size(); ++i)
    s += (i ? "," : "") + Field(plan.tried[i].algorithm, plan.tried[i].arena);
  return s + "}," + Field("buffers", static_cast<uint64_t>(plan.live.buffers.size())) + "," +
         Field("unplanned_values", static_cast<uint64_t>(plan.live.unplanned_values));
}

}  // namespace

std::string SummaryJson(const MemoryPlan& plan) {
  const Liveness& live = plan.live;
  return "{" + Common(plan) + "," + Field("planned_values", static_cast<uint64_t>(live.planned_values)) + "," +
         Field("views", static_cast<uint64_t>(live.views)) + "," +
         Field("in_place", static_cast<uint64_t>(live.in_place)) + "}";
}

std::string PlanJson(const MemoryPlan& plan) {
  std::string s = "{" + Field("model", plan.model) + "," + Field("alignment", kAlignment) + "," + Common(plan) +
                  "," + Field("steps", plan.live.steps()) + ",\n\"schedule\":[";
  for (size_t i = 0; i < plan.live.schedule.size(); ++i) s += (i ? "," : "") + Quote(StepLabel(plan.live.schedule[i]));
  s += "],\n\"values\":[";
  bool first = true;
  for (const LiveValue& v : plan.live.values) {
    if (!v.planned()) continue;
    s += first ? "\n" : ",\n";
    first = false;
    s += "{" + Field("name", v.value.Name()) + "," + Field("graph", GraphName(v)) + "," +
         Field("offset", plan.arena.offsets[static_cast<size_t>(v.buffer)]) + "," + Field("size", v.bytes) + "," +
         Field("first", v.first) + "," + Field("last", v.last) + "," + Field("buffer", static_cast<int64_t>(v.buffer));
    if (v.reuse != Reuse::kNone)
      s += "," + Field("reuse", ReuseName(v.reuse)) + "," +
           Field("reuse_of", plan.live.values[static_cast<size_t>(v.reuse_of)].value.Name());
    s += "}";
  }
  s += "],\n\"unplanned\":[";
  first = true;
  for (const LiveValue& v : plan.live.values) {
    if (v.planned()) continue;
    s += first ? "\n" : ",\n";
    first = false;
    s += "{" + Field("name", v.value.Name()) + "," + Field("graph", GraphName(v)) + "," +
         Field("reason", plan.live.Reason(v)) + "}";
  }
  return s + "]}\n";
}

}  // namespace kiln::memory
