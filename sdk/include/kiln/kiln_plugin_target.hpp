// kiln_plugin_target.hpp - hardware targets (ABI 1.3) in the C++ wrapper: the plugin side that defines a target,
// and the client side any pass uses to ask the active one. Include it (after or instead of kiln_plugin.hpp) in a
// plugin that defines or queries targets.
//
// Defining a target: derive from kiln::sdk::Target and register an instance with a TargetSpec in the KILN_PLUGIN
// body:
//
//   class MyTarget final : public kiln::sdk::Target {
//    public:
//     std::string Engine(kiln::sdk::Node node) override { return "cpu"; }
//     kiln::sdk::CostEstimate Estimate(std::span<const kiln::sdk::Node> nodes) override;
//   };
//
//   KILN_PLUGIN("my_target", "1.0.0") {
//     kiln::sdk::AddTarget<MyTarget>(reg, {.name = "mycpu", .description = "...", .engines = {"cpu"}});
//   }
//
// The host calls the target through trampolines that catch every exception (kiln::sdk::Error keeps its code,
// anything else is KILN_STATUS_INTERNAL), as the pass and kernel trampolines do. Engine and format names the
// target returns are interned (kept for the target's life), so the pointers the host receives never dangle; the
// engine and reason of an estimate stay valid until the next estimate, as the ABI asks. SyncCost, TransferCost and
// PreferredFormat have defaults that mean what a NULL callback means (no barriers, free conversions, any format).
//
// Asking the active target (oo.target / `kiln compile --target NAME`) from any pass: the functions of
// kiln::sdk::active_target forward to the host's target_* slots. ActiveName() is empty when no target is active
// (also on a host older than 1.3, where none can be); the others throw Error (NOT_FOUND without an active target,
// UNSUPPORTED on a host without the slot).
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <algorithm>
#include <concepts>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

// KILN_SDK_REQUIRE_SLOT, and also refuses a slot the table covers but left NULL (a host mid-way to a version).
#define KILN_SDK_REQUIRE_TARGET_SLOT(slot)                                                                   \
  do {                                                                                                       \
    KILN_SDK_REQUIRE_SLOT(slot);                                                                             \
    if (!::kiln::sdk::Host().slot)                                                                           \
      throw ::kiln::sdk::Error("the Kiln host does not implement " #slot, KILN_STATUS_UNSUPPORTED);         \
  } while (0)

namespace kiln::sdk {

// What a target estimates for one node or a fused group (KilnCostEstimate, in C++ terms).
struct CostEstimate {
  double seconds = 0;          // launch and barriers included
  double compute_seconds = 0;  // the roofline's compute part
  double memory_seconds = 0;   // the roofline's off-chip memory part
  double launch_seconds = 0;
  double barrier_seconds = 0;
  uint64_t flops = 0;
  uint64_t offchip_bytes = 0;
  uint64_t onchip_bytes = 0;  // a group's peak on-chip working set
  uint32_t launches = 0;
  uint32_t barriers = 0;
  bool feasible = true;  // false: the group cannot run as one kernel (reason says why)
  std::string engine;    // for a group: the first node's engine
  std::string reason;    // why it is not feasible, or a note for the report
};

// What the host lists about a target. engines: at least one; formats and details_json may be empty.
struct TargetSpec {
  std::string name;
  std::string description;
  std::vector<std::string> engines;
  std::vector<std::string> formats;
  std::string details_json;  // a JSON object for `kiln targets --json`
};

// Target formats as layout passes write them (TargetFormatPass, plugins/layout), so that a target's cost model can
// read them: calls of functions in domain kFormatDomain are either conversions (names starting "To" or "From": a
// TransData kernel, costed as what its body does) or an op running in a blocked format, whose body is the op
// between layout nodes named with kFormatGluePrefix: those are how the op addresses its blocked tensors, not work
// of their own, and a cost model skips them. A tensor stored in a format other than ND carries the value annotation
// kFormatAnnotation (GE's StorageFormat: "NC1HWC0"); every other tensor is ND.
inline constexpr std::string_view kFormatDomain = "kiln.format";
inline constexpr std::string_view kFormatGluePrefix = "kiln.format.glue/";
inline constexpr std::string_view kFormatAnnotation = "format";

class Target;

// A deferred target's description and object (AddDeferredTarget), made when the host first needs them.
struct DescribedTarget {
  TargetSpec spec;  // spec.name must be the name the target was registered with
  std::unique_ptr<Target> target;
};

// A hardware target. The host calls one target's methods from one thread at a time.
class Target {
 public:
  virtual ~Target() = default;
  // The engine node runs on: one of TargetSpec::engines.
  virtual std::string Engine(Node node) = 0;
  // One node (size 1) or a group fused into one kernel (size > 1, in topological order). A call node of a
  // model-local function stands for its body fused.
  virtual CostEstimate Estimate(std::span<const Node> nodes) = 0;
  // Seconds of a barrier between a task on `from` and the next on `to`; 0: none needed.
  virtual double SyncCost(std::string_view /*from*/, std::string_view /*to*/) { return 0; }
  // Seconds converting value between two formats costs; 0: free.
  virtual double TransferCost(Value /*value*/, std::string_view /*from_format*/, std::string_view /*to_format*/) {
    return 0;
  }
  // The format preferred for input (is_output false) or output `index` of node; "" or "ND": any.
  virtual std::string PreferredFormat(Node /*node*/, bool /*is_output*/, size_t /*index*/) { return ""; }
  // ABI 1.6: the dims value takes stored in format, padding included (-1: not a known number); nullopt: this
  // target does not describe its layouts (the default), so no pass chooses a format for it.
  virtual std::optional<std::vector<int64_t>> StorageShape(Value /*value*/, std::string_view /*format*/) {
    return std::nullopt;
  }
};

namespace detail {

// The user_data of a registered target: the object, and the strings whose pointers the host was given.
class TargetHolder {
 public:
  explicit TargetHolder(std::unique_ptr<Target> target) : target_(std::move(target)) {}
  // Deferred (ABI 1.7): the target is made by load when the host asks for its description.
  TargetHolder(std::string name, std::function<DescribedTarget()> load)
      : name_(std::move(name)), load_(std::move(load)) {}
  Target& target() {
    if (!target_) throw Error("target '" + name_ + "' is used before the host described it", KILN_STATUS_INTERNAL);
    return *target_;
  }
  // Runs load (once) and keeps what it made; the spec's strings live as long as the holder.
  const TargetSpec& Load() {
    if (target_) return spec_;
    DescribedTarget d = load_();
    if (!d.target) throw Error("target '" + name_ + "': its loader made no target object", KILN_STATUS_INTERNAL);
    if (d.spec.name != name_)
      throw Error("target '" + name_ + "': its description names it '" + d.spec.name + "'",
                  KILN_STATUS_INVALID_ARGUMENT);
    if (d.spec.engines.empty()) throw Error("target '" + name_ + "' names no engine", KILN_STATUS_INVALID_ARGUMENT);
    spec_ = std::move(d.spec);
    target_ = std::move(d.target);
    return spec_;
  }
  // The arrays a description's engines and formats point into.
  std::vector<const char*>& engine_names() { return engine_names_; }
  std::vector<const char*>& format_names() { return format_names_; }
  // A pointer valid for the holder's life.
  const char* Intern(std::string s) { return interned_.insert(std::move(s)).first->c_str(); }
  // Fills out (only the bytes its struct_size covers) from e; engine and reason live until the next call.
  void Fill(const CostEstimate& e, KilnCostEstimate* out) {
    engine_ = e.engine;
    reason_ = e.reason;
    KilnCostEstimate c;
    std::memset(&c, 0, sizeof c);
    c.seconds = e.seconds;
    c.compute_seconds = e.compute_seconds;
    c.memory_seconds = e.memory_seconds;
    c.launch_seconds = e.launch_seconds;
    c.barrier_seconds = e.barrier_seconds;
    c.flops = e.flops;
    c.offchip_bytes = e.offchip_bytes;
    c.onchip_bytes = e.onchip_bytes;
    c.launches = e.launches;
    c.barriers = e.barriers;
    c.feasible = e.feasible ? 1 : 0;
    c.engine = engine_.empty() ? nullptr : engine_.c_str();
    c.reason = reason_.empty() ? nullptr : reason_.c_str();
    const size_t size = out->struct_size;
    c.struct_size = size;
    std::memcpy(static_cast<void*>(out), &c, std::min(size, sizeof c));
  }

 private:
  std::unique_ptr<Target> target_;
  std::unordered_set<std::string> interned_;
  std::string engine_, reason_;
  std::string name_;
  std::function<DescribedTarget()> load_;
  TargetSpec spec_;
  std::vector<const char*> engine_names_, format_names_;
};

inline TargetHolder& HolderOf(void* user_data) { return *static_cast<TargetHolder*>(user_data); }

inline void RequireOut(const void* out, const char* what) {
  if (!out) throw Error(std::string(what) + " is NULL", KILN_STATUS_INVALID_ARGUMENT);
}

struct TargetTrampolines {
  static KilnStatus* NodeEngine(void* self, KilnNode* node, const char** out_engine) {
    return Guard([&] {
      RequireOut(out_engine, "out_engine");
      TargetHolder& h = HolderOf(self);
      *out_engine = h.Intern(h.target().Engine(Node(node)));
    });
  }
  static KilnStatus* Estimate(void* self, KilnNode* const* nodes, size_t count, KilnCostEstimate* out) {
    return Guard([&] {
      RequireOut(out, "out");
      if (out->struct_size < KILN_STRUCT_SIZE_UNTIL(KilnCostEstimate, struct_size))
        throw Error("KilnCostEstimate.struct_size is not set", KILN_STATUS_ABI_MISMATCH);
      if (count == 0) throw Error("estimate of no nodes", KILN_STATUS_INVALID_ARGUMENT);
      RequireOut(nodes, "nodes");
      std::vector<Node> list;
      list.reserve(count);
      for (size_t i = 0; i < count; ++i) {
        if (!nodes[i]) throw Error("node " + std::to_string(i) + " of the estimate is NULL", KILN_STATUS_INVALID_ARGUMENT);
        list.emplace_back(nodes[i]);
      }
      TargetHolder& h = HolderOf(self);
      h.Fill(h.target().Estimate(list), out);
    });
  }
  static KilnStatus* SyncCost(void* self, const char* from, const char* to, double* out_seconds) {
    return Guard([&] {
      RequireOut(out_seconds, "out_seconds");
      *out_seconds = HolderOf(self).target().SyncCost(OrEmpty(from), OrEmpty(to));
    });
  }
  static KilnStatus* TransferCost(void* self, KilnValue* value, const char* from, const char* to,
                                  double* out_seconds) {
    return Guard([&] {
      RequireOut(out_seconds, "out_seconds");
      *out_seconds = HolderOf(self).target().TransferCost(Value(value), OrEmpty(from), OrEmpty(to));
    });
  }
  static KilnStatus* StorageShape(void* self, KilnValue* value, const char* format, int64_t* out_dims,
                                  size_t capacity, size_t* out_rank) {
    return Guard([&] {
      RequireOut(out_rank, "out_rank");
      std::optional<std::vector<int64_t>> dims = HolderOf(self).target().StorageShape(Value(value), OrEmpty(format));
      if (!dims) throw Error("this target does not describe storage shapes", KILN_STATUS_FAILED_PRECONDITION);
      if (capacity && !out_dims) throw Error("out_dims is NULL", KILN_STATUS_INVALID_ARGUMENT);
      std::copy_n(dims->begin(), std::min(capacity, dims->size()), out_dims);
      *out_rank = dims->size();
    });
  }
  static KilnStatus* PreferredFormat(void* self, KilnNode* node, int32_t is_output, size_t index,
                                     const char** out_format) {
    return Guard([&] {
      RequireOut(out_format, "out_format");
      TargetHolder& h = HolderOf(self);
      *out_format = h.Intern(h.target().PreferredFormat(Node(node), is_output != 0, index));
    });
  }
};

inline std::vector<const char*> CStrings(const std::vector<std::string>& v) {
  std::vector<const char*> out;
  out.reserve(v.size());
  for (const std::string& s : v) out.push_back(s.c_str());
  return out;
}

// Fills info's description, engines, formats, details and callbacks from spec (engines and formats point into the
// two vectors, which must outlive info's use).
inline void FillTargetInfo(KilnTargetInfo& info, const TargetSpec& spec, std::vector<const char*>& engines,
                           std::vector<const char*>& formats) {
  engines = CStrings(spec.engines);
  formats = CStrings(spec.formats);
  info.description = spec.description.empty() ? nullptr : spec.description.c_str();
  info.engines = engines.data();
  info.engine_count = engines.size();
  info.formats = formats.empty() ? nullptr : formats.data();
  info.format_count = formats.size();
  info.details_json = spec.details_json.empty() ? nullptr : spec.details_json.c_str();
  info.node_engine = &TargetTrampolines::NodeEngine;
  info.estimate = &TargetTrampolines::Estimate;
  info.sync_cost = &TargetTrampolines::SyncCost;
  info.transfer_cost = &TargetTrampolines::TransferCost;
  info.preferred_format = &TargetTrampolines::PreferredFormat;
  if (NegotiatedAbiVersion() >= KILN_ABI_VERSION_1_6) info.storage_shape = &TargetTrampolines::StorageShape;
}

// KilnTargetInfo.describe: loads the holder's target and fills out (no byte past its struct_size).
inline KilnStatus* DescribeTrampoline(void* self, KilnTargetInfo* out) {
  return Guard([&] {
    RequireOut(out, "out");
    TargetHolder& h = HolderOf(self);
    KilnTargetInfo info;
    std::memset(&info, 0, sizeof info);
    FillTargetInfo(info, h.Load(), h.engine_names(), h.format_names());  // all kept by the holder
    const size_t size = out->struct_size;
    info.struct_size = size;
    std::memcpy(static_cast<void*>(out), &info, std::min(size, sizeof info));
  });
}

inline CostEstimate FromC(const KilnCostEstimate& c) {
  CostEstimate e;
  auto has = [&](size_t until) { return c.struct_size >= until; };
#define KILN_SDK_COST_FIELD_(field, expr) \
  if (has(KILN_STRUCT_SIZE_UNTIL(KilnCostEstimate, field))) e.field = expr
  KILN_SDK_COST_FIELD_(seconds, c.seconds);
  KILN_SDK_COST_FIELD_(compute_seconds, c.compute_seconds);
  KILN_SDK_COST_FIELD_(memory_seconds, c.memory_seconds);
  KILN_SDK_COST_FIELD_(launch_seconds, c.launch_seconds);
  KILN_SDK_COST_FIELD_(barrier_seconds, c.barrier_seconds);
  KILN_SDK_COST_FIELD_(flops, c.flops);
  KILN_SDK_COST_FIELD_(offchip_bytes, c.offchip_bytes);
  KILN_SDK_COST_FIELD_(onchip_bytes, c.onchip_bytes);
  KILN_SDK_COST_FIELD_(launches, c.launches);
  KILN_SDK_COST_FIELD_(barriers, c.barriers);
  KILN_SDK_COST_FIELD_(feasible, c.feasible != 0);
  KILN_SDK_COST_FIELD_(engine, OrEmpty(c.engine));
  KILN_SDK_COST_FIELD_(reason, OrEmpty(c.reason));
#undef KILN_SDK_COST_FIELD_
  return e;
}

}  // namespace detail

// Registers target (the host owns it from then on, and destroys it before the plugin unloads). Needs a host of
// ABI 1.3 or newer: an older one keeps only a target's name, so registering there is refused (UNSUPPORTED).
inline void AddTarget(Registrar& reg, const TargetSpec& spec, std::unique_ptr<Target> target) {
  if (!target) throw Error("target '" + spec.name + "': no target object", KILN_STATUS_INVALID_ARGUMENT);
  if (NegotiatedAbiVersion() < KILN_ABI_VERSION_1_3)
    throw Error("target '" + spec.name + "' needs a Kiln host of ABI 1.3 or newer (this host speaks " +
                    std::to_string(KILN_ABI_VERSION_GET_MAJOR(Host().abi_version)) + "." +
                    std::to_string(KILN_ABI_VERSION_GET_MINOR(Host().abi_version)) + ")",
                KILN_STATUS_UNSUPPORTED);
  if (spec.engines.empty())
    throw Error("target '" + spec.name + "' names no engine", KILN_STATUS_INVALID_ARGUMENT);
  auto holder = std::make_unique<detail::TargetHolder>(std::move(target));
  std::vector<const char*> engines, formats;
  KilnTargetInfo info;
  std::memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.name = spec.name.c_str();
  detail::FillTargetInfo(info, spec, engines, formats);
  info.user_data = holder.get();
  info.destroy_user_data = &detail::Destroy<detail::TargetHolder>;
  Check(Host().register_target(reg.raw(), &info));
  holder.release();  // the host owns it now and destroys it through destroy_user_data
}

// Registers a target by name now and calls load only when the host first needs the rest (it is made active, or
// `kiln targets` lists it): for a plugin that reads its targets from files, so that a compile that uses none reads
// none. load's errors (kiln::sdk::Error or any exception) fail that use, with their message. On a host older than
// ABI 1.7, which cannot defer, load runs now.
inline void AddDeferredTarget(Registrar& reg, std::string name, std::function<DescribedTarget()> load) {
  if (NegotiatedAbiVersion() < KILN_ABI_VERSION_1_7) {
    DescribedTarget d = load();
    if (d.spec.name != name)
      throw Error("target '" + name + "': its description names it '" + d.spec.name + "'",
                  KILN_STATUS_INVALID_ARGUMENT);
    AddTarget(reg, d.spec, std::move(d.target));
    return;
  }
  if (name.empty()) throw Error("a deferred target has no name", KILN_STATUS_INVALID_ARGUMENT);
  auto holder = std::make_unique<detail::TargetHolder>(name, std::move(load));
  KilnTargetInfo info;
  std::memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.name = name.c_str();
  info.user_data = holder.get();
  info.destroy_user_data = &detail::Destroy<detail::TargetHolder>;
  info.describe = &detail::DescribeTrampoline;
  Check(Host().register_target(reg.raw(), &info));
  holder.release();  // the host owns it now and destroys it through destroy_user_data
}

// Registers a T built from args.
template <class T, class... Args>
  requires std::derived_from<T, Target>
void AddTarget(Registrar& reg, const TargetSpec& spec, Args&&... args) {
  AddTarget(reg, spec, std::unique_ptr<Target>(std::make_unique<T>(std::forward<Args>(args)...)));
}

// The folder of the host's shipped configuration (pipelines/, fusion/, targets/); ABI 1.3.
inline std::string HostConfigDir() {
  KILN_SDK_REQUIRE_TARGET_SLOT(host_config_dir);
  return detail::OrEmpty(Host().host_config_dir());
}

// The active target, as any pass sees it through the host.
namespace active_target {

// The active target's name; empty when none is (or the host predates targets).
inline std::string ActiveName() {
  if (!KILN_HOST_HAS(&Host(), target_active) || !Host().target_active) return "";
  return detail::OrEmpty(Host().target_active());
}
inline std::vector<std::string> Engines() {
  KILN_SDK_REQUIRE_TARGET_SLOT(target_engine_at);
  std::vector<std::string> out(Host().target_engine_count());
  for (size_t i = 0; i < out.size(); ++i) out[i] = detail::OrEmpty(Host().target_engine_at(i));
  return out;
}
inline std::string NodeEngine(Node node) {
  KILN_SDK_REQUIRE_TARGET_SLOT(target_node_engine);
  const char* engine = nullptr;
  Check(Host().target_node_engine(node.raw(), &engine));
  return detail::OrEmpty(engine);
}
inline CostEstimate Estimate(std::span<const Node> nodes) {
  KILN_SDK_REQUIRE_TARGET_SLOT(target_estimate);
  std::vector<KilnNode*> raw;
  raw.reserve(nodes.size());
  for (const Node& n : nodes) raw.push_back(n.raw());
  KilnCostEstimate c;
  std::memset(&c, 0, sizeof c);
  c.struct_size = sizeof c;
  Check(Host().target_estimate(raw.data(), raw.size(), &c));
  return detail::FromC(c);
}
inline CostEstimate Estimate(Node node) { return Estimate(std::span<const Node>(&node, 1)); }
inline double SyncCost(std::string_view from_engine, std::string_view to_engine) {
  KILN_SDK_REQUIRE_TARGET_SLOT(target_sync_cost);
  double seconds = 0;
  Check(Host().target_sync_cost(std::string(from_engine).c_str(), std::string(to_engine).c_str(), &seconds));
  return seconds;
}
inline double TransferCost(Value value, std::string_view from_format, std::string_view to_format) {
  KILN_SDK_REQUIRE_TARGET_SLOT(target_transfer_cost);
  double seconds = 0;
  Check(Host().target_transfer_cost(value.raw(), std::string(from_format).c_str(), std::string(to_format).c_str(),
                                    &seconds));
  return seconds;
}
inline std::string PreferredFormat(Node node, bool is_output, size_t index) {
  KILN_SDK_REQUIRE_TARGET_SLOT(target_preferred_format);
  const char* format = nullptr;
  Check(Host().target_preferred_format(node.raw(), is_output ? 1 : 0, index, &format));
  return detail::OrEmpty(format);
}

// ABI 1.6: the dims value takes stored in format on the active target (-1: not a known number). Throws NOT_FOUND
// without an active target and FAILED_PRECONDITION when the target does not describe storage shapes.
inline std::vector<int64_t> StorageShape(Value value, std::string_view format) {
  KILN_SDK_REQUIRE_SLOT(target_storage_shape);
  std::vector<int64_t> dims(8);
  size_t rank = 0;
  const std::string f(format);
  Check(Host().target_storage_shape(value.raw(), f.c_str(), dims.data(), dims.size(), &rank));
  if (rank > dims.size()) {
    dims.resize(rank);
    Check(Host().target_storage_shape(value.raw(), f.c_str(), dims.data(), dims.size(), &rank));
  }
  dims.resize(std::min(rank, dims.size()));
  return dims;
}

}  // namespace active_target
}  // namespace kiln::sdk
