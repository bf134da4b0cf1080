// The active target and the calls into its plugin; see active_target.h.
#include "target/active_target.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "ir/node.h"
#include "ir/value.h"
#include "plugin/host_api.h"

namespace kiln::target {
namespace {

thread_local const PluginTarget* t_active = nullptr;

std::string Who(const PluginTarget& t) { return "target '" + t.name + "' (plugin " + t.plugin + ")"; }

[[noreturn]] void Fail(const std::string& message) { throw plugin::SlotError(KILN_STATUS_FAILED, message); }

void RequireModel(const PluginTarget& t) {
  if (t.bare)
    throw plugin::SlotError(KILN_STATUS_UNSUPPORTED, Who(t) + " registered only its name (a plugin of ABI " +
                                                         plugin::AbiVersionText(t.plugin_abi) +
                                                         "): it has no engines or cost model");
}

// Runs one callback of t in a frame of its plugin; a status it returns becomes a SlotError with its code.
template <class F>
void Call(const PluginTarget& t, const std::string& what, F&& callback) {
  RequireModel(t);
  KilnStatus* status = plugin::CallPlugin(t.services, "the callback", std::forward<F>(callback));
  if (status == nullptr) return;
  KilnStatusCode code = status->code == KILN_STATUS_OK ? KILN_STATUS_FAILED : status->code;
  std::string message = status->message.empty() ? "(no message)" : status->message;
  delete status;
  throw plugin::SlotError(code, Who(t) + ": " + what + ": " + message);
}

void CheckSeconds(const PluginTarget& t, const std::string& what, const char* field, double v) {
  if (!std::isfinite(v) || v < 0)
    Fail(Who(t) + ": " + what + " gave " + field + " = " + std::to_string(v) + " (a time must be finite and >= 0)");
}

void CheckEngine(const PluginTarget& t, const std::string& engine, const char* which) {
  if (std::find(t.engines.begin(), t.engines.end(), engine) != t.engines.end()) return;
  std::string known;
  for (const std::string& e : t.engines) known += (known.empty() ? "" : ", ") + e;
  throw plugin::SlotError(KILN_STATUS_INVALID_ARGUMENT, std::string(which) + " '" + engine + "' is not an engine of " +
                                                            Who(t) + " (its engines: " + known + ")");
}

}  // namespace

ActiveTargetScope::ActiveTargetScope(const PluginTarget* target) : outer_(t_active) { t_active = target; }
ActiveTargetScope::~ActiveTargetScope() { t_active = outer_; }

const PluginTarget* ActiveTarget() { return t_active; }

std::string NodeText(const Node& node) {
  if (node.name().empty()) return "a node '" + node.op_type() + "'";
  return "node '" + node.name() + "' (" + node.op_type() + ")";
}

std::string NodeEngine(const PluginTarget& t, Node* node) {
  const std::string what = "node_engine of " + NodeText(*node);
  const char* engine = nullptr;
  Call(t, what, [&] { return t.node_engine(t.user_data, plugin::ToKiln(node), &engine); });
  if (engine == nullptr) Fail(Who(t) + ": " + what + " gave no engine");
  std::string e = engine;
  if (std::find(t.engines.begin(), t.engines.end(), e) == t.engines.end()) {
    std::string known;
    for (const std::string& name : t.engines) known += (known.empty() ? "" : ", ") + name;
    Fail(Who(t) + ": " + what + " gave engine '" + e + "', which is not one of its engines (" + known + ")");
  }
  return e;
}

KilnCostEstimate CallEstimate(const PluginTarget& t, std::span<Node* const> nodes) {
  std::string what = "estimate of ";
  if (nodes.size() == 1) what += NodeText(*nodes[0]);
  else what += "a group of " + std::to_string(nodes.size()) + " nodes from " + NodeText(*nodes.front());
  std::vector<KilnNode*> handles;
  handles.reserve(nodes.size());
  for (Node* n : nodes) handles.push_back(plugin::ToKiln(n));
  KilnCostEstimate out;
  std::memset(&out, 0, sizeof out);
  out.struct_size = sizeof out;
  Call(t, what, [&] { return t.estimate(t.user_data, handles.data(), handles.size(), &out); });
  out.struct_size = sizeof out;  // what the host reads, whatever the plugin wrote there
  CheckSeconds(t, what, "seconds", out.seconds);
  CheckSeconds(t, what, "compute_seconds", out.compute_seconds);
  CheckSeconds(t, what, "memory_seconds", out.memory_seconds);
  CheckSeconds(t, what, "launch_seconds", out.launch_seconds);
  CheckSeconds(t, what, "barrier_seconds", out.barrier_seconds);
  return out;
}

Estimate EstimateNodes(const PluginTarget& t, std::span<Node* const> nodes) {
  KilnCostEstimate c = CallEstimate(t, nodes);
  Estimate e;
  e.seconds = c.seconds;
  e.compute_seconds = c.compute_seconds;
  e.memory_seconds = c.memory_seconds;
  e.launch_seconds = c.launch_seconds;
  e.barrier_seconds = c.barrier_seconds;
  e.flops = c.flops;
  e.offchip_bytes = c.offchip_bytes;
  e.onchip_bytes = c.onchip_bytes;
  e.launches = c.launches;
  e.barriers = c.barriers;
  e.feasible = c.feasible != 0;
  e.engine = c.engine ? c.engine : "";
  e.reason = c.reason ? c.reason : "";
  return e;
}

double SyncCost(const PluginTarget& t, const std::string& from, const std::string& to) {
  RequireModel(t);
  CheckEngine(t, from, "from_engine");
  CheckEngine(t, to, "to_engine");
  if (!t.sync_cost) return 0;
  const std::string what = "sync_cost from " + from + " to " + to;
  double seconds = 0;
  Call(t, what, [&] { return t.sync_cost(t.user_data, from.c_str(), to.c_str(), &seconds); });
  CheckSeconds(t, what, "seconds", seconds);
  return seconds;
}

double TransferCost(const PluginTarget& t, Value* value, const std::string& from, const std::string& to) {
  RequireModel(t);
  if (!t.transfer_cost) return 0;
  const std::string what = "transfer_cost of value '" + value->name() + "' from " + from + " to " + to;
  double seconds = 0;
  Call(t, what, [&] {
    return t.transfer_cost(t.user_data, plugin::ToKiln(value), from.c_str(), to.c_str(), &seconds);
  });
  CheckSeconds(t, what, "seconds", seconds);
  return seconds;
}

std::vector<int64_t> StorageShape(const PluginTarget& t, Value* value, const std::string& format) {
  RequireModel(t);
  if (!t.storage_shape)
    throw std::logic_error("target '" + t.name + "' (plugin " + t.plugin + ") does not describe storage shapes");
  const std::string what = "storage_shape of value '" + value->name() + "' in " + format;
  std::vector<int64_t> dims(8);
  size_t rank = 0;
  for (int attempt = 0; attempt < 2; ++attempt) {
    Call(t, what, [&] {
      return t.storage_shape(t.user_data, plugin::ToKiln(value), format.c_str(), dims.data(), dims.size(), &rank);
    });
    if (rank <= dims.size()) break;
    dims.resize(rank);  // the first call asked for more room
  }
  if (rank > dims.size()) throw std::runtime_error(what + ": the rank changed between two calls");
  dims.resize(rank);
  for (int64_t d : dims)
    if (d < -1) throw std::runtime_error(what + ": dimension " + std::to_string(d) + " is below -1");
  return dims;
}

std::string PreferredFormat(const PluginTarget& t, Node* node, bool is_output, size_t index) {
  RequireModel(t);
  if (!t.preferred_format) return "";
  const std::string what = "preferred_format of " + NodeText(*node) + (is_output ? " output " : " input ") +
                           std::to_string(index);
  const char* format = nullptr;
  Call(t, what, [&] {
    return t.preferred_format(t.user_data, plugin::ToKiln(node), is_output ? 1 : 0, index, &format);
  });
  return format ? format : "";
}

}  // namespace kiln::target
