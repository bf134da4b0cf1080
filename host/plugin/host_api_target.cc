// ABI 1.3 (and 1.6: target_storage_shape) slots that forward a pass's questions to the active target (oo.target; host/target/active_target.h):
// each checks its arguments, calls the target's callback in a frame of the target's plugin, and hands the answer
// back, strings copied into the caller's frame. A failing callback's status (code and message, the target named)
// is the slot's status. Without an active target, target_active answers NULL, target_engine_count 0, and the
// others NOT_FOUND.
#include <algorithm>
#include <cstring>
#include <vector>

#include "ir/node.h"
#include "plugin/host_api.h"
#include "target/active_target.h"

namespace kiln::plugin {
namespace {

const PluginTarget& Active() {
  const PluginTarget* t = target::ActiveTarget();
  if (t == nullptr) throw SlotError(KILN_STATUS_NOT_FOUND, "no target is active (pass --target NAME)");
  return *t;
}

Node* LiveNode(KilnNode* node) {
  if (node == nullptr) throw std::invalid_argument("node is NULL");
  Node* n = FromKiln(node);
  if (n->is_deleted()) throw std::invalid_argument("node is deleted");
  return n;
}

template <class T>
void RequireOut(T* out, const char* name) {
  if (out == nullptr) throw std::invalid_argument(std::string(name) + " is NULL");
}

const char* TargetActive() {
  const PluginTarget* t = target::ActiveTarget();
  return t ? t->name.c_str() : nullptr;
}
size_t TargetEngineCount() {
  const PluginTarget* t = target::ActiveTarget();
  return t ? t->engines.size() : 0;
}
const char* TargetEngineAt(size_t index) {
  const PluginTarget* t = target::ActiveTarget();
  return t && index < t->engines.size() ? t->engines[index].c_str() : nullptr;
}

KilnStatus* TargetNodeEngine(KilnNode* node, const char** out_engine) {
  return Guarded([&] {
    RequireOut(out_engine, "out_engine");
    Node* n = LiveNode(node);
    std::string engine = target::NodeEngine(Active(), n);
    *out_engine = CallFrame::Current().Str(std::move(engine));
  });
}

KilnStatus* TargetEstimate(KilnNode* const* nodes, size_t count, KilnCostEstimate* out) {
  return Guarded([&] {
    RequireOut(out, "out");
    if (count == 0) throw std::invalid_argument("target_estimate of no nodes (count is 0)");
    RequireOut(nodes, "nodes");
    std::vector<Node*> list;
    list.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      if (nodes[i] == nullptr) throw std::invalid_argument("node " + std::to_string(i) + " of the group is NULL");
      list.push_back(LiveNode(nodes[i]));
    }
    const PluginTarget& t = Active();
    KilnCostEstimate e = target::CallEstimate(t, list);
    CallFrame& frame = CallFrame::Current();
    e.engine = e.engine ? frame.Str(e.engine) : nullptr;
    e.reason = e.reason ? frame.Str(e.reason) : nullptr;
    // Every caller of this 1.3 slot knows 1.3's struct; a smaller struct_size that still covers all of it (a
    // caller older than a future host's larger struct) is honoured.
    size_t n = sizeof(KilnCostEstimate);
    if (out->struct_size >= KILN_STRUCT_SIZE_UNTIL(KilnCostEstimate, reason) && out->struct_size < n)
      n = out->struct_size;
    e.struct_size = n;
    std::memcpy(static_cast<void*>(out), &e, n);
  });
}

KilnStatus* TargetSyncCost(const char* from_engine, const char* to_engine, double* out_seconds) {
  return Guarded([&] {
    RequireOut(out_seconds, "out_seconds");
    RequireOut(from_engine, "from_engine");
    RequireOut(to_engine, "to_engine");
    *out_seconds = target::SyncCost(Active(), from_engine, to_engine);
  });
}

KilnStatus* TargetTransferCost(KilnValue* value, const char* from_format, const char* to_format,
                               double* out_seconds) {
  return Guarded([&] {
    RequireOut(out_seconds, "out_seconds");
    RequireOut(value, "value");
    RequireOut(from_format, "from_format");
    RequireOut(to_format, "to_format");
    *out_seconds = target::TransferCost(Active(), FromKiln(value), from_format, to_format);
  });
}

KilnStatus* TargetPreferredFormat(KilnNode* node, int32_t is_output, size_t index, const char** out_format) {
  return Guarded([&] {
    RequireOut(out_format, "out_format");
    Node* n = LiveNode(node);
    size_t slots = is_output ? n->num_outputs() : n->num_inputs();
    if (index >= slots)
      throw std::out_of_range(std::string(is_output ? "output" : "input") + " index " + std::to_string(index) +
                              " of " + target::NodeText(*n) + ", which has " + std::to_string(slots));
    std::string format = target::PreferredFormat(Active(), n, is_output != 0, index);
    *out_format = CallFrame::Current().Str(std::move(format));
  });
}

KilnStatus* TargetStorageShape(KilnValue* value, const char* format, int64_t* out_dims, size_t capacity,
                               size_t* out_rank) {
  return Guarded([&] {
    RequireOut(out_rank, "out_rank");
    RequireOut(value, "value");
    RequireOut(format, "format");
    if (capacity && !out_dims) throw std::invalid_argument("out_dims is NULL but capacity is " + std::to_string(capacity));
    const PluginTarget& t = Active();
    if (!t.storage_shape)
      throw SlotError(KILN_STATUS_FAILED_PRECONDITION,
                      "target '" + t.name + "' (plugin " + t.plugin + ") does not describe storage shapes");
    std::vector<int64_t> dims = target::StorageShape(t, FromKiln(value), format);
    std::copy_n(dims.begin(), std::min(capacity, dims.size()), out_dims);
    *out_rank = dims.size();
  });
}

}  // namespace

void FillTargetSlots(KilnHostApi& api) {
  api.target_active = TargetActive;
  api.target_engine_count = TargetEngineCount;
  api.target_engine_at = TargetEngineAt;
  api.target_node_engine = TargetNodeEngine;
  api.target_estimate = TargetEstimate;
  api.target_sync_cost = TargetSyncCost;
  api.target_transfer_cost = TargetTransferCost;
  api.target_preferred_format = TargetPreferredFormat;
  api.target_storage_shape = TargetStorageShape;
}

}  // namespace kiln::plugin
