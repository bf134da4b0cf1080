// An independent check of a memory plan (the JSON `kiln compile --memory-plan` writes), from the file alone:
//   - its form: every field with its type; alignment 64;
//   - every offset aligned, every offset + size within the arena, every range inside the schedule;
//   - soundness: two values of different buffers whose live ranges share a step share no byte; the values of one
//     buffer share its offset, and a value written in place starts where every earlier value of its buffer has
//     been read for the last time;
//   - the lower bound, recomputed from the buffers (each: its largest value, the union of its values' ranges).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kiln::testing {

inline ::testing::AssertionResult CheckMemoryPlan(const nlohmann::json& plan) {
  using ::testing::AssertionFailure;
  for (const char* key : {"model", "algorithm", "order"})
    if (!plan.contains(key) || !plan[key].is_string()) return AssertionFailure() << "no string field " << key;
  for (const char* key : {"alignment", "arena_bytes", "lower_bound_bytes", "peak_live_bytes", "intermediate_bytes",
                          "original_order_lower_bound_bytes", "steps", "buffers", "unplanned_values"})
    if (!plan.contains(key) || !plan[key].is_number_unsigned()) return AssertionFailure() << "no count " << key;
  for (const char* key : {"schedule", "values", "unplanned"})
    if (!plan.contains(key) || !plan[key].is_array()) return AssertionFailure() << "no array " << key;
  if (!plan.contains("planners") || !plan["planners"].is_object()) return AssertionFailure() << "no planners";
  const std::string algorithm = plan["algorithm"];
  if (!plan["planners"].contains(algorithm) || plan["planners"][algorithm] != plan["arena_bytes"])
    return AssertionFailure() << "the arena is not the chosen planner's";
  for (const auto& [name, bytes] : plan["planners"].items())
    if (bytes.get<uint64_t>() < plan["arena_bytes"].get<uint64_t>())
      return AssertionFailure() << "planner " << name << " had a smaller arena than the one kept";
  const uint64_t align = plan["alignment"], arena = plan["arena_bytes"];
  const int64_t steps = plan["steps"];
  if (align != 64) return AssertionFailure() << "alignment " << align;
  if (arena % align) return AssertionFailure() << "arena " << arena << " not aligned";
  if (static_cast<int64_t>(plan["schedule"].size()) != steps) return AssertionFailure() << "schedule != steps";
  if (plan["unplanned"].size() != plan["unplanned_values"].get<size_t>())
    return AssertionFailure() << "unplanned count";
  for (const auto& u : plan["unplanned"])
    if (!u.contains("name") || !u.contains("reason") || u["reason"].get<std::string>().empty())
      return AssertionFailure() << "an unplanned value without a reason";

  struct V {
    std::string name, reuse;
    uint64_t offset, size;
    int64_t first, last, buffer;
  };
  std::vector<V> values;
  uint64_t total = 0;
  for (const auto& j : plan["values"]) {
    V v{j.at("name"), j.value("reuse", ""), j.at("offset"), j.at("size"), j.at("first"), j.at("last"),
        j.at("buffer")};
    if (v.offset % align) return AssertionFailure() << v.name << ": offset " << v.offset << " not aligned";
    if (v.offset + v.size > arena) return AssertionFailure() << v.name << ": ends past the arena";
    if (v.first < 0 || v.first > v.last || v.last >= steps) return AssertionFailure() << v.name << ": bad range";
    if (!v.reuse.empty() && v.reuse != "view" && v.reuse != "in-place")
      return AssertionFailure() << v.name << ": reuse " << v.reuse;
    total += v.size;
    values.push_back(v);
  }
  if (total != plan["intermediate_bytes"].get<uint64_t>())
    return AssertionFailure() << "intermediate_bytes " << plan["intermediate_bytes"] << " != " << total;

  // Buffers: one offset; in-place writes only over values read for the last time at that step.
  struct B {
    uint64_t offset = 0, size = 0;
    int64_t first = INT64_MAX, last = -1;
  };
  std::map<int64_t, B> buffers;
  std::map<int64_t, std::vector<const V*>> members;
  for (const V& v : values) {
    auto [it, fresh] = buffers.emplace(v.buffer, B{v.offset});
    if (!fresh && it->second.offset != v.offset) return AssertionFailure() << v.name << ": buffer offset differs";
    if (fresh && !v.reuse.empty()) return AssertionFailure() << v.name << ": reuses a buffer nobody wrote before";
    it->second.size = std::max(it->second.size, v.size);
    it->second.first = std::min(it->second.first, v.first);
    it->second.last = std::max(it->second.last, v.last);
    members[v.buffer].push_back(&v);
  }
  for (const auto& [id, list] : members)
    for (const V* v : list)
      if (v->reuse == "in-place")
        for (const V* other : list)
          if (other != v && other->first < v->first && other->last > v->first)
            return AssertionFailure() << v->name << " is written over " << other->name << ", read later";
  if (buffers.size() != plan["buffers"].get<size_t>()) return AssertionFailure() << "buffer count";

  // Soundness across buffers.
  std::vector<const V*> by_first;
  for (const V& v : values) by_first.push_back(&v);
  std::sort(by_first.begin(), by_first.end(), [](const V* a, const V* b) { return a->first < b->first; });
  for (size_t i = 0; i < by_first.size(); ++i)
    for (size_t k = i + 1; k < by_first.size() && by_first[k]->first <= by_first[i]->last; ++k) {
      const V& a = *by_first[i];
      const V& b = *by_first[k];
      if (a.buffer == b.buffer || !a.size || !b.size) continue;
      if (a.offset < b.offset + b.size && b.offset < a.offset + a.size)
        return AssertionFailure() << a.name << " [" << a.first << "," << a.last << "] @" << a.offset << "+"
                                  << a.size << " overlaps " << b.name << " [" << b.first << "," << b.last << "] @"
                                  << b.offset << "+" << b.size;
    }

  // The lower bound, recomputed.
  std::vector<uint64_t> live(static_cast<size_t>(std::max<int64_t>(steps, 1)), 0);
  for (const auto& [id, b] : buffers)
    for (int64_t s = b.first; s <= b.last; ++s) live[static_cast<size_t>(s)] += (b.size + align - 1) / align * align;
  const uint64_t bound = *std::max_element(live.begin(), live.end());
  if (bound != plan["lower_bound_bytes"].get<uint64_t>())
    return AssertionFailure() << "lower bound " << plan["lower_bound_bytes"] << ", recomputed " << bound;
  if (arena < bound) return AssertionFailure() << "arena below the lower bound";
  return ::testing::AssertionSuccess();
}

}  // namespace kiln::testing
