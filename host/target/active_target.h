// The active target (option oo.target, `kiln compile --target NAME`) and the calls into it. The Compiler holds an
// ActiveTargetScope around a compile's run, so that the host's target_* slots (host/plugin/host_api_target.cc),
// which any pass may call, and the trace (trace.h) reach the target the compile names; outside one, or in a
// compile without a target, ActiveTarget() is null.
//
// Every call into the target runs in a CallFrame with the services of the plugin that registered it, as every call
// into a plugin does. A callback that fails (returns a status, or lets an exception escape) throws a SlotError with
// the status's code and the target's name before its message; an answer the ABI rules out (an engine the target
// does not list, a negative or non-finite time) throws one too (KILN_STATUS_FAILED). Strings the target returns are
// copied before these functions return, except in CallEstimate, whose raw struct the caller copies at once.
#pragma once

#include <kiln/kiln_plugin.h>

#include <cstdint>
#include <span>
#include <string>

#include "plugin/loaded_plugin.h"

namespace kiln {
class Node;
class Value;
}  // namespace kiln

namespace kiln::target {

using plugin::PluginTarget;

// Makes `target` (null: none) the active target of this thread for the scope's life; scopes nest.
class ActiveTargetScope {
 public:
  explicit ActiveTargetScope(const PluginTarget* target);
  ~ActiveTargetScope();
  ActiveTargetScope(const ActiveTargetScope&) = delete;
  ActiveTargetScope& operator=(const ActiveTargetScope&) = delete;

 private:
  const PluginTarget* outer_;
};

// The innermost scope's target on this thread; null when none is active.
const PluginTarget* ActiveTarget();

// KilnCostEstimate with its strings copied.
struct Estimate {
  double seconds = 0, compute_seconds = 0, memory_seconds = 0, launch_seconds = 0, barrier_seconds = 0;
  uint64_t flops = 0, offchip_bytes = 0, onchip_bytes = 0;
  uint32_t launches = 0, barriers = 0;
  bool feasible = true;
  std::string engine, reason;
};

// "node 'name' (Op)", or "a node 'Op'" when it has no name: how messages name a node.
std::string NodeText(const Node& node);

// The engine node runs on: one of target.engines.
std::string NodeEngine(const PluginTarget& target, Node* node);
// The target's estimate of nodes (one, or a group as one kernel, in topological order; none is null). The raw
// struct is the host's size; its engine and reason point into the plugin (valid until the next call into it).
KilnCostEstimate CallEstimate(const PluginTarget& target, std::span<Node* const> nodes);
Estimate EstimateNodes(const PluginTarget& target, std::span<Node* const> nodes);
// Seconds of the barrier between a task on `from` and the next on `to` (both engines of the target); 0 without a
// sync_cost callback.
double SyncCost(const PluginTarget& target, const std::string& from, const std::string& to);
// Seconds converting value between two formats; 0 without a transfer_cost callback.
double TransferCost(const PluginTarget& target, Value* value, const std::string& from, const std::string& to);
// The format preferred for input (is_output false) or output `index` of node; "" (any) without a callback.
std::string PreferredFormat(const PluginTarget& target, Node* node, bool is_output, size_t index);
// The dims value takes stored in format (-1: not a known number); std::logic_error (FAILED_PRECONDITION) when the
// target has no storage_shape callback.
std::vector<int64_t> StorageShape(const PluginTarget& target, Value* value, const std::string& format);

}  // namespace kiln::target
