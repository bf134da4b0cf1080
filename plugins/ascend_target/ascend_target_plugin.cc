// ascend_target: Huawei Ascend NPU targets for Kiln. One target per YAML description in
// <host_config_dir()>/targets/ (or $KILN_ASCEND_TARGETS_DIR), registered when the plugin loads; a file that does not
// parse fails the registration with its file:line:column. Each target answers the host's questions (engine of a
// node, estimates of nodes and fused groups, barriers, format conversions, preferred formats) through CostModel,
// which this file feeds with what node_reader.h reads from the handles. Needs a host of ABI 1.3.
#include <kiln/kiln_plugin_target.hpp>

#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cost_model.h"
#include "node_reader.h"
#include "target_description.h"

namespace {

namespace sdk = kiln::sdk;
using kiln::ascend::CostModel;
using kiln::ascend::OpNode;

constexpr const char* kTargetsDirEnv = "KILN_ASCEND_TARGETS_DIR";

sdk::CostEstimate ToSdk(const kiln::ascend::Cost& c) {
  sdk::CostEstimate e;
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
  e.feasible = c.feasible;
  e.engine = c.engine;
  e.reason = c.reason;
  return e;
}

// The model's std::invalid_argument (an unknown engine or format) is the caller's mistake.
template <class F>
auto Checked(F&& f) {
  try {
    return f();
  } catch (const std::invalid_argument& e) {
    throw sdk::Error(e.what(), KILN_STATUS_INVALID_ARGUMENT);
  }
}

class AscendTarget final : public sdk::Target {
 public:
  explicit AscendTarget(kiln::ascend::TargetDescription d) : model_(std::move(d)) {}

  std::string Engine(sdk::Node node) override {
    if (!kiln::ascend::IsFunctionCall(node)) return model_.EngineOf(kiln::ascend::ReadNode(node));
    // A call runs where its body's first piece of work does.
    for (const OpNode& n : kiln::ascend::ReadGroup(std::span<const sdk::Node>(&node, 1)))
      if (const kiln::ascend::OpClass* c = model_.ClassOf(n); !c || c->cost != kiln::ascend::CostRule::kConstant)
        return model_.EngineOf(n);
    return model_.description().engine_rules.default_engine;
  }

  sdk::CostEstimate Estimate(std::span<const sdk::Node> nodes) override {
    if (nodes.size() == 1 && !kiln::ascend::IsFunctionCall(nodes[0]))
      return ToSdk(model_.EstimateNode(kiln::ascend::ReadNode(nodes[0])));
    return ToSdk(model_.EstimateGroup(kiln::ascend::ReadGroup(nodes)));
  }

  double SyncCost(std::string_view from, std::string_view to) override {
    return Checked([&] { return model_.SyncCost(from, to); });
  }

  double TransferCost(sdk::Value value, std::string_view from, std::string_view to) override {
    if (!value) throw sdk::Error("transfer cost of a NULL value", KILN_STATUS_INVALID_ARGUMENT);
    return Checked([&] { return model_.TransferCost(kiln::ascend::ReadTensor(value), from, to); });
  }

  std::optional<std::vector<int64_t>> StorageShape(sdk::Value value, std::string_view format) override {
    if (!value) throw sdk::Error("storage shape of a NULL value", KILN_STATUS_INVALID_ARGUMENT);
    return Checked([&] { return model_.StorageShape(kiln::ascend::ReadTensor(value), format); });
  }

  std::string PreferredFormat(sdk::Node node, bool is_output, size_t index) override {
    if (!kiln::ascend::IsFunctionCall(node))
      return model_.PreferredFormat(kiln::ascend::ReadNode(node), is_output, index);
    // A call: what its body's reader of that input (or its body's producer of that output) prefers.
    sdk::Value v = is_output ? node.Output(index) : node.Input(index);
    if (!v) return "ND";
    const std::string id = kiln::ascend::ReadTensor(v).id;
    for (const OpNode& n : kiln::ascend::ReadGroup(std::span<const sdk::Node>(&node, 1), false)) {
      const auto& list = is_output ? n.outputs : n.inputs;
      for (size_t i = 0; i < list.size(); ++i)
        if (list[i] && list[i]->id == id) return model_.PreferredFormat(n, is_output, i);
    }
    return "ND";
  }

 private:
  CostModel model_;
};

std::string VersionText(uint32_t v) {
  return std::to_string(KILN_ABI_VERSION_GET_MAJOR(v)) + "." + std::to_string(KILN_ABI_VERSION_GET_MINOR(v));
}

}  // namespace

KILN_PLUGIN("ascend_target", "1.0.0",
            "Huawei Ascend NPU targets (configs/targets/*.yaml): engines, cost model, barriers, formats") {
  const KilnHostApi& host = sdk::Host();
  if (sdk::NegotiatedAbiVersion() < KILN_ABI_VERSION_1_3 || !KILN_HOST_HAS(&host, host_config_dir) ||
      !host.host_config_dir)
    throw sdk::Error("ascend_target needs a Kiln host of ABI 1.3 or newer (host_config_dir and the target slots); "
                     "this host speaks ABI " + VersionText(host.abi_version) +
                         (KILN_HOST_HAS(&host, host_config_dir) ? " but does not implement host_config_dir" : ""),
                     KILN_STATUS_UNSUPPORTED);
  std::string dir;
  const char* env = std::getenv(kTargetsDirEnv);
  if (env && *env) dir = env;
  else dir = sdk::HostConfigDir() + "/targets";

  std::vector<std::string> files = kiln::ascend::DescriptionFiles(dir);
  if (files.empty()) {
    if (env && *env)
      throw sdk::Error(std::string(kTargetsDirEnv) + "=" + dir + " holds no target description (*.yaml)",
                       KILN_STATUS_NOT_FOUND);
    sdk::Log(KILN_LOG_WARN, "", "no target descriptions in " + dir + ": no Ascend target registered");
    return;
  }
  std::vector<kiln::ascend::TargetDescription> descriptions;
  std::map<std::string, std::string> file_of;
  for (const std::string& file : files) {
    try {
      descriptions.push_back(kiln::ascend::LoadDescription(file));
    } catch (const kiln::ascend::DescriptionError& e) {
      throw sdk::Error(e.what(), KILN_STATUS_INVALID_ARGUMENT);
    }
    const std::string& name = descriptions.back().name;
    if (auto [it, fresh] = file_of.emplace(name, file); !fresh)
      throw sdk::Error(file + ": target '" + name + "' is already described by " + it->second,
                       KILN_STATUS_INVALID_ARGUMENT);
  }
  for (kiln::ascend::TargetDescription& d : descriptions) {
    sdk::TargetSpec spec;
    spec.name = d.name;
    spec.description = d.description;
    for (const kiln::ascend::Engine& e : d.engines) spec.engines.push_back(e.name);
    spec.formats = d.formats.supported;
    spec.details_json = kiln::ascend::DescriptionJson(d);
    std::string file = d.file;
    sdk::AddTarget<AscendTarget>(reg, spec, std::move(d));
    sdk::Log(KILN_LOG_DEBUG, "", "target " + spec.name + " from " + file);
  }
}
