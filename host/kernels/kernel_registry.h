// The kernel registry, with GE's two levels: plugin kernels (the broad library, tried first) and the host's
// built-in kernels (the fallback). A kernel is registered for (domain, op type, opset range, element types); it
// may answer "unsupported" for a case it cannot handle, and the next candidate is tried. Calls, unsupported
// answers and time are counted per level and op type for the report.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kernels/kernel_call.h"

namespace kiln {

enum class KernelLevel { kPlugin = 0, kBuiltin = 1 };

enum class KernelResult { kDone, kUnsupported };

// Throws kiln::Error for a real failure (bad input data); returns kUnsupported to let the next level try.
using KernelFn = std::function<KernelResult(KernelCall&)>;

struct KernelDef {
  std::string domain;  // "" for ONNX's default domain
  std::string op_type;
  int64_t since = 1;
  int64_t until = std::numeric_limits<int64_t>::max();  // inclusive
  std::vector<DataType> types;  // element types of the first tensor input it handles; empty: any
  KernelFn fn;
  KernelLevel level = KernelLevel::kBuiltin;
  std::string owner = "host";  // "host" or the plugin's name
  bool deterministic = true;   // false for random ops: never folded
};

struct KernelStats {
  uint64_t calls = 0, unsupported = 0;
  double seconds = 0;
};

class KernelRegistry {
 public:
  void Add(KernelDef def);
  // Runs the first kernel that handles the call, plugins first. Returns false when none did; `why` then says
  // what was tried ("no kernel for X at opset N" or "kernels of <owners> answered unsupported").
  bool Compute(KernelCall& call, std::string* why = nullptr) const;
  // Whether some kernel is registered for the op at that opset (it may still answer unsupported).
  bool Has(std::string_view domain, std::string_view op_type, int64_t opset) const;
  bool IsDeterministic(std::string_view domain, std::string_view op_type, int64_t opset) const;

  // {"plugin": {"Add": {"calls": .., "unsupported": .., "seconds": ..}}, "builtin": {...}}
  nlohmann::json StatsJson() const;
  void ResetStats() const;

 private:
  struct Key {
    std::string domain, op_type;
    bool operator<(const Key& o) const { return std::tie(domain, op_type) < std::tie(o.domain, o.op_type); }
  };
  std::map<Key, std::vector<KernelDef>> kernels_;  // per op: plugin kernels first, then built-ins, in order added
  mutable std::mutex stats_mu_;
  mutable std::map<std::pair<int, std::string>, KernelStats> stats_;
};

// Registers the host's built-in kernels (GE's host-kernel set mapped onto ONNX).
void RegisterBuiltinKernels(KernelRegistry& registry);

}  // namespace kiln
