// ascend_target: Huawei Ascend NPU targets for Kiln. One target per YAML description in
// <host_config_dir()>/targets/ (or $KILN_ASCEND_TARGETS_DIR), registered by name when the plugin loads and read when
// the target is first used or listed (ABI 1.7's deferred description; at once on an older host); a file that does
// not parse fails that use with its file:line:column, and leaves the other targets alone. Each target answers the
// host's questions (engine of a node, estimates of nodes and fused groups, barriers, format conversions, preferred
// formats) through CostModel, which this file feeds with what node_reader.h reads from the handles. Needs a host of
// ABI 1.3.
#include <kiln/kiln_plugin_target.hpp>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
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

// The target name a description file gives on its top-level `name:` line, read as YAML on its own; nullopt when
// there is no such line (or it is not a plain string), so the caller parses the whole file.
std::optional<std::string> ScanTargetName(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.starts_with("name:")) continue;
    try {
      YAML::Node n = YAML::Load(line)["name"];
      if (n.IsScalar() && !n.Scalar().empty()) return n.Scalar();
    } catch (const YAML::Exception&) {
    }
    return std::nullopt;
  }
  return std::nullopt;
}

kiln::ascend::TargetDescription Load(const std::string& file) {
  try {
    return kiln::ascend::LoadDescription(file);
  } catch (const kiln::ascend::DescriptionError& e) {
    throw sdk::Error(e.what(), KILN_STATUS_INVALID_ARGUMENT);
  }
}

sdk::DescribedTarget Described(kiln::ascend::TargetDescription d) {
  sdk::DescribedTarget out;
  out.spec.name = d.name;
  out.spec.description = d.description;
  for (const kiln::ascend::Engine& e : d.engines) out.spec.engines.push_back(e.name);
  out.spec.formats = d.formats.supported;
  out.spec.details_json = kiln::ascend::DescriptionJson(d);
  out.target = std::make_unique<AscendTarget>(std::move(d));
  return out;
}

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
  // A target is registered by the name its file's top-level `name:` line gives (read without parsing the file)
  // and described when first used: yaml-cpp reads about 7 MB/s, 2.5 ms per shipped file, which every compile
  // paid for every installed description before. A file whose name cannot be read that way is parsed now.
  std::map<std::string, std::string> file_of;
  for (const std::string& file : files) {
    std::optional<std::string> name = ScanTargetName(file);
    std::optional<kiln::ascend::TargetDescription> now;
    if (!name) {
      now = Load(file);
      name = now->name;
    }
    if (auto [it, fresh] = file_of.emplace(*name, file); !fresh)
      throw sdk::Error(file + ": target '" + *name + "' is already described by " + it->second,
                       KILN_STATUS_INVALID_ARGUMENT);
    if (now) {
      sdk::DescribedTarget d = Described(std::move(*now));
      sdk::AddTarget(reg, d.spec, std::move(d.target));
      continue;
    }
    sdk::AddDeferredTarget(reg, *name, [file, expected = *name] {
      kiln::ascend::TargetDescription d = Load(file);
      if (d.name != expected)
        throw sdk::Error(file + ": its name is '" + d.name + "', but its top-level name line reads '" + expected + "'",
                         KILN_STATUS_INVALID_ARGUMENT);
      return Described(std::move(d));
    });
    sdk::Log(KILN_LOG_DEBUG, "", "target " + *name + " from " + file + " (read when first used)");
  }
}
