// Checking, holding and committing a plugin's registrations: see plugin_registration.h. The checks never read a
// field that the struct's struct_size does not cover.
#include "plugin/plugin_registration.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "plugin/host_api.h"
#include "plugin/plugin_kernel.h"
#include "support/error.h"

namespace kiln::plugin {
namespace {

std::string Text(const char* s) { return s ? s : ""; }

template <class T>
void CheckSize(const T* info, size_t minimum, const char* type, const std::string& what) {
  if (!info) throw std::invalid_argument(std::string(type) + " is NULL");
  if (info->struct_size < minimum)
    throw SlotError(KILN_STATUS_ABI_MISMATCH, std::string(type) + " of " + what + " is " +
                                                  std::to_string(info->struct_size) +
                                                  " bytes, smaller than ABI 1.0's " + std::to_string(minimum) + " bytes");
}

bool IsOnnxDomain(const std::string& d) {
  return d.empty() || d == "ai.onnx" || d == "ai.onnx.ml" || d == "ai.onnx.training" ||
         d == "ai.onnx.preview.training";
}

std::string TypeList(const std::vector<DataType>& types) {
  if (types.empty()) return "any type";
  std::string s;
  for (DataType t : types) s += (s.empty() ? "" : ",") + std::string(DataTypeName(t));
  return s;
}

}  // namespace

const char* KindName(Registration::Kind kind) {
  switch (kind) {
    case Registration::Kind::kPass: return "pass";
    case Registration::Kind::kKernel: return "kernel";
    case Registration::Kind::kOpSchema: return "op schema";
    case Registration::Kind::kOption: return "option";
    case Registration::Kind::kFusionRules: return "fusion rules";
    case Registration::Kind::kTarget: return "target";
  }
  return "?";
}

PendingRegistration::PendingRegistration(LoadedPlugin& plugin, const HostServices* services)
    : plugin_(plugin), services_(services) {}

PendingRegistration::~PendingRegistration() {
  if (committed_) return;
  for (auto it = destroyers_.rbegin(); it != destroyers_.rend(); ++it) it->first(it->second);
}

void PendingRegistration::Keep(KilnDestroyFn destroy, void* user_data) {
  if (destroy) destroyers_.emplace_back(destroy, user_data);
}

void PendingRegistration::Record(Registration::Kind kind, std::string name, std::string detail,
                                 std::string shadowed_by) {
  plugin_.registrations.push_back({kind, std::move(name), std::move(detail), std::move(shadowed_by)});
}

OptionDef PendingRegistration::OptionFrom(const KilnOptionInfo* info, bool own) const {
  std::string what = "an option";
  if (info && info->struct_size >= KILN_STRUCT_SIZE_UNTIL(KilnOptionInfo, name) && info->name)
    what = "option '" + std::string(info->name) + "'";
  CheckSize(info, KILN_OPTION_INFO_SIZE_1_0, "KilnOptionInfo", what);
  std::string name = Text(info->name);
  if (name.empty()) throw std::invalid_argument("an option has no name");
  if (info->min_level < 0 || info->min_level > 3)
    throw std::invalid_argument(what + ": min_level " + std::to_string(info->min_level) + " is not 0..3");
  if (info->allowed_value_count && !info->allowed_values) throw std::invalid_argument(what + ": allowed_values is NULL");
  if (info->level_default_count && !info->level_defaults) throw std::invalid_argument(what + ": level_defaults is NULL");
  OptionDef def;
  switch (info->type) {
    case KILN_OPTION_BOOL: def = OptionDef::Bool(name); break;
    case KILN_OPTION_INT: def = OptionDef::Int(name); break;
    case KILN_OPTION_FLOAT: def = OptionDef::Float(name); break;
    case KILN_OPTION_STRING: {
      std::vector<std::string> allowed;
      for (size_t i = 0; i < info->allowed_value_count; ++i) allowed.push_back(Text(info->allowed_values[i]));
      def = allowed.empty() ? OptionDef::String(name) : OptionDef::Enum(name, std::move(allowed));
      break;
    }
    default: throw std::invalid_argument(what + ": type " + std::to_string(info->type) + " is not a KILN_OPTION_*");
  }
  if (!info->default_value && info->type != KILN_OPTION_STRING)
    throw std::invalid_argument(what + ": default_value is NULL");
  def.ActiveFrom(static_cast<OptLevel>(info->min_level)).Default(Text(info->default_value));
  for (size_t l = 0; l < info->level_default_count && l < kNumOptLevels; ++l)
    if (info->level_defaults[l]) def.DefaultAt(static_cast<OptLevel>(l), info->level_defaults[l]);
  if (info->scopes != 0) {
    OptionPlaces places = static_cast<unsigned>(OptionPlace::kPipeline);
    if (info->scopes & KILN_OPTION_SCOPE_CLI) places |= static_cast<unsigned>(OptionPlace::kCli);
    if (info->scopes & KILN_OPTION_SCOPE_SESSION) places |= static_cast<unsigned>(OptionPlace::kSession);
    if (info->scopes & KILN_OPTION_SCOPE_GRAPH) places |= static_cast<unsigned>(OptionPlace::kGraph);
    def.Places(places);
  }
  def.Help(Text(info->help)).Owner(plugin_.name);
  // The registry's own checks (defaults that parse, levels), on a scratch registry: nothing is kept yet.
  OptionRegistry scratch;
  try {
    scratch.Add(def);
  } catch (const Error& e) {
    throw std::invalid_argument(std::string(e.what()) + (own ? " (a pass's own option)" : ""));
  }
  return *scratch.Find(name);
}

void PendingRegistration::AddPass(const KilnPassInfo* info) {
  std::string what = "a pass";
  if (info && info->struct_size >= KILN_STRUCT_SIZE_UNTIL(KilnPassInfo, name) && info->name)
    what = "pass '" + std::string(info->name) + "'";
  CheckSize(info, KILN_PASS_INFO_SIZE_1_0, "KilnPassInfo", what);
  auto def = std::make_shared<PluginPassDef>();
  def->name = Text(info->name);
  if (def->name.empty()) throw std::invalid_argument("a pass has no name");
  if (info->kind != KILN_PASS_NODE && info->kind != KILN_PASS_GRAPH)
    throw std::invalid_argument(what + ": kind " + std::to_string(info->kind) + " is not KILN_PASS_NODE or _GRAPH");
  def->node_pass = info->kind == KILN_PASS_NODE;
  if (def->node_pass && !info->run_on_node) throw std::invalid_argument(what + " is a node pass without run_on_node");
  if (!def->node_pass && !info->run_on_graph) throw std::invalid_argument(what + " is a graph pass without run_on_graph");
  for (const auto& p : passes_)
    if (p->name == def->name) throw std::invalid_argument(what + " is registered twice by this plugin");
  if (info->option_count && !info->options) throw std::invalid_argument(what + ": options is NULL");
  for (size_t i = 0; i < info->option_count; ++i) {
    OptionDef o = OptionFrom(info->options[i], true);
    for (const OptionDef& other : def->options)
      if (other.name == o.name) throw std::invalid_argument(what + ": option '" + o.name + "' is listed twice");
    def->options.push_back(std::move(o));
  }
  def->plugin = plugin_.name;
  def->file = plugin_.file;
  def->description = Text(info->description);
  def->switch_option = Text(info->switch_option);
  def->run_on_node = def->node_pass ? info->run_on_node : nullptr;
  def->run_on_graph = def->node_pass ? nullptr : info->run_on_graph;
  if (def->node_pass && KILN_STRUCT_HAS_FIELD(info, KilnPassInfo, on_finish_graph) &&
      plugin_.negotiated_version >= KILN_ABI_VERSION_1_1)
    def->on_finish_graph = info->on_finish_graph;
  if (KILN_STRUCT_HAS_FIELD(info, KilnPassInfo, preserved_analyses) && plugin_.negotiated_version >= KILN_ABI_VERSION_1_2)
    def->preserved_analyses = info->preserved_analyses & KILN_ANALYSIS_ALL;
  if (KILN_STRUCT_HAS_FIELD(info, KilnPassInfo, prepare) && plugin_.negotiated_version >= KILN_ABI_VERSION_1_9)
    def->prepare = info->prepare;
  if (def->node_pass && KILN_STRUCT_HAS_FIELD(info, KilnPassInfo, op_type_count) &&
      plugin_.negotiated_version >= KILN_ABI_VERSION_1_12 && (info->op_types || info->op_type_count)) {
    if (!info->op_types) throw std::invalid_argument(what + ": op_type_count is not 0 but op_types is NULL");
    if (info->op_type_count == 0)
      throw std::invalid_argument(what + ": op_types lists no op type (NULL runs the pass on every node)");
    std::vector<std::string> op_types;
    for (size_t i = 0; i < info->op_type_count; ++i) {
      if (!info->op_types[i] || !*info->op_types[i])
        throw std::invalid_argument(what + ": op_types[" + std::to_string(i) + "] is " +
                                    (info->op_types[i] ? "empty" : "NULL"));
      op_types.emplace_back(info->op_types[i]);
    }
    def->op_types.emplace(std::move(op_types));
  }
  def->user_data = info->user_data;
  def->services = services_;
  passes_.push_back(def);
  Keep(info->destroy_user_data, info->user_data);
}

void PendingRegistration::AddKernel(const KilnKernelInfo* info) {
  std::string what = "a kernel";
  if (info && info->struct_size >= KILN_STRUCT_SIZE_UNTIL(KilnKernelInfo, op_type) && info->op_type)
    what = "kernel " + (info->domain && *info->domain ? std::string(info->domain) + "." : "") + info->op_type;
  CheckSize(info, KILN_KERNEL_INFO_SIZE_1_0, "KilnKernelInfo", what);
  PendingKernel k;
  k.def.domain = Text(info->domain) == "ai.onnx" ? "" : Text(info->domain);
  k.def.op_type = Text(info->op_type);
  if (k.def.op_type.empty()) throw std::invalid_argument("a kernel has no op_type");
  if (!info->compute) throw std::invalid_argument(what + " has no compute callback");
  if (info->since_version < 1) throw std::invalid_argument(what + ": since_version must be at least 1");
  if (info->until_version != 0 && info->until_version < info->since_version)
    throw std::invalid_argument(what + ": until_version is below since_version");
  if (info->elem_type_count && !info->elem_types) throw std::invalid_argument(what + ": elem_types is NULL");
  for (size_t i = 0; i < info->elem_type_count; ++i) {
    if (!ValidElemType(info->elem_types[i]))
      throw std::invalid_argument(what + ": element type " + std::to_string(info->elem_types[i]) + " is unknown");
    k.def.types.push_back(static_cast<DataType>(info->elem_types[i]));
  }
  k.def.since = info->since_version;
  k.def.until = info->until_version == 0 ? std::numeric_limits<int64_t>::max() : info->until_version;
  k.def.level = KernelLevel::kPlugin;
  k.def.owner = plugin_.name;
  k.def.deterministic = (info->flags & KILN_KERNEL_NONDETERMINISTIC) == 0;
  k.key = (k.def.domain.empty() ? "" : k.def.domain + ".") + k.def.op_type;
  auto binding = std::make_shared<PluginKernelBinding>();
  binding->plugin = plugin_.name;
  binding->file = plugin_.file;
  binding->name = info->name && *info->name ? info->name : k.key;
  binding->compute = info->compute;
  binding->user_data = info->user_data;
  binding->thread_safe = (info->flags & KILN_KERNEL_THREAD_SAFE) != 0;
  binding->any_alignment =
      plugin_.negotiated_version >= KILN_ABI_VERSION_1_8 && (info->flags & KILN_KERNEL_ANY_ALIGNMENT) != 0;
  binding->services = services_;
  k.def.fn = MakePluginKernelFn(binding);
  k.detail = "opset " + std::to_string(k.def.since) +
             (info->until_version == 0 ? "+" : ".." + std::to_string(info->until_version)) + ", " +
             TypeList(k.def.types) + (k.def.deterministic ? "" : ", nondeterministic");
  kernels_.push_back(std::move(k));
  Keep(info->destroy_user_data, info->user_data);
}

void PendingRegistration::AddOpSchema(const KilnOpSchemaInfo* info) {
  std::string what = "an op schema";
  if (info && info->struct_size >= KILN_STRUCT_SIZE_UNTIL(KilnOpSchemaInfo, op_type) && info->op_type)
    what = "op schema " + Text(info->domain) + "." + info->op_type;
  CheckSize(info, KILN_OP_SCHEMA_INFO_SIZE_1_0, "KilnOpSchemaInfo", what);
  PendingSchema s;
  s.spec.domain = Text(info->domain);
  s.spec.op_type = Text(info->op_type);
  if (s.spec.op_type.empty()) throw std::invalid_argument("an op schema has no op_type");
  if (IsOnnxDomain(s.spec.domain))
    throw std::invalid_argument(what + ": domain '" + s.spec.domain + "' is one of ONNX's; schemas are for custom domains");
  if (info->since_version < 1) throw std::invalid_argument(what + ": since_version must be at least 1");
  if (info->min_inputs < 0 || info->min_outputs < 0 || (info->max_inputs != -1 && info->max_inputs < info->min_inputs) ||
      (info->max_outputs != -1 && info->max_outputs < info->min_outputs))
    throw std::invalid_argument(what + ": the input or output counts are not a range (min >= 0, max >= min or -1)");
  for (const PendingSchema& other : schemas_)
    if (other.spec.domain == s.spec.domain && other.spec.op_type == s.spec.op_type &&
        other.spec.since_version == info->since_version)
      throw std::invalid_argument(what + " is registered twice by this plugin");
  s.spec.doc = Text(info->doc);
  s.spec.since_version = info->since_version;
  s.spec.min_inputs = info->min_inputs;
  s.spec.max_inputs = info->max_inputs;
  s.spec.min_outputs = info->min_outputs;
  s.spec.max_outputs = info->max_outputs;
  s.infer = info->infer_shapes;
  s.user_data = info->user_data;
  schemas_.push_back(std::move(s));
  Keep(info->destroy_user_data, info->user_data);
}

void PendingRegistration::AddFusionRules(const KilnFusionRulePackInfo* info) {
  std::string what = "a fusion rule pack";
  if (info && info->struct_size >= KILN_STRUCT_SIZE_UNTIL(KilnFusionRulePackInfo, name) && info->name)
    what = "fusion rule pack '" + std::string(info->name) + "'";
  CheckSize(info, KILN_FUSION_RULE_PACK_INFO_SIZE_1_0, "KilnFusionRulePackInfo", what);
  FusionRulePack pack{Text(info->name), Text(info->yaml), Text(info->source_name)};
  if (pack.name.empty()) throw std::invalid_argument("a fusion rule pack has no name");
  if (!info->yaml) throw std::invalid_argument(what + ": yaml is NULL");
  for (const FusionRulePack& other : rule_packs_)
    if (other.name == pack.name) throw std::invalid_argument(what + " is registered twice by this plugin");
  rule_packs_.push_back(std::move(pack));
}

namespace {

// Reads a KilnTargetInfo's 1.3 and later model fields into t (description, engines, formats, details, callbacks)
// where info's struct_size covers them and `negotiated` (the plugin's ABI) has them. `required`: they must be there
// (a described target); otherwise a struct with none of them leaves t bare. Throws invalid_argument naming `what`.
void ReadTargetModel(PluginTarget& t, const KilnTargetInfo& info, uint32_t negotiated, const std::string& what,
                     bool required) {
  const bool speaks_1_3 = negotiated >= KILN_ABI_VERSION_1_3;
  auto has = [&](size_t until) { return speaks_1_3 && info.struct_size >= until; };
#define KILN_TARGET_FIELD_(field, fallback) \
  (has(KILN_STRUCT_SIZE_UNTIL(KilnTargetInfo, field)) ? info.field : (fallback))
  const char* description = KILN_TARGET_FIELD_(description, nullptr);
  const char* const* engines = KILN_TARGET_FIELD_(engines, nullptr);
  const size_t engine_count = KILN_TARGET_FIELD_(engine_count, 0);
  const char* const* formats = KILN_TARGET_FIELD_(formats, nullptr);
  const size_t format_count = KILN_TARGET_FIELD_(format_count, 0);
  const char* details = KILN_TARGET_FIELD_(details_json, nullptr);
  t.node_engine = KILN_TARGET_FIELD_(node_engine, nullptr);
  t.estimate = KILN_TARGET_FIELD_(estimate, nullptr);
  t.sync_cost = KILN_TARGET_FIELD_(sync_cost, nullptr);
  t.transfer_cost = KILN_TARGET_FIELD_(transfer_cost, nullptr);
  t.preferred_format = KILN_TARGET_FIELD_(preferred_format, nullptr);
  // 1.6: only from a plugin that speaks it.
  if (negotiated >= KILN_ABI_VERSION_1_6) t.storage_shape = KILN_TARGET_FIELD_(storage_shape, nullptr);
#undef KILN_TARGET_FIELD_
  const bool any = description || engines || engine_count || formats || format_count || details || t.node_engine ||
                   t.estimate || t.sync_cost || t.transfer_cost || t.preferred_format || t.storage_shape;
  if (!any && !required) {
    t.node_engine = nullptr;
    t.estimate = nullptr;
    return;
  }
  if (!t.node_engine) throw std::invalid_argument(what + " has no node_engine callback");
  if (!t.estimate) throw std::invalid_argument(what + " has no estimate callback");
  if (engine_count == 0) throw std::invalid_argument(what + " names no engine (engine_count is 0)");
  if (!engines) throw std::invalid_argument(what + ": engines is NULL");
  if (format_count && !formats) throw std::invalid_argument(what + ": formats is NULL");
  t.engines.clear();
  t.formats.clear();
  for (size_t i = 0; i < engine_count; ++i) {
    std::string e = Text(engines[i]);
    if (e.empty()) throw std::invalid_argument(what + ": engine " + std::to_string(i) + " has no name");
    if (std::find(t.engines.begin(), t.engines.end(), e) != t.engines.end())
      throw std::invalid_argument(what + ": engine '" + e + "' is listed twice");
    t.engines.push_back(std::move(e));
  }
  for (size_t i = 0; i < format_count; ++i) {
    std::string f = Text(formats[i]);
    if (f.empty()) throw std::invalid_argument(what + ": format " + std::to_string(i) + " has no name");
    t.formats.push_back(std::move(f));
  }
  if (details) {
    nlohmann::json parsed = nlohmann::json::parse(details, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object())
      throw std::invalid_argument(what + ": details_json is not a JSON object");
    t.details_json = details;
  }
  if (description) t.description = Text(description);
  t.bare = false;
}

}  // namespace

void PendingRegistration::AddTarget(const KilnTargetInfo* info) {
  std::string what = "a target";
  if (info && info->struct_size >= KILN_STRUCT_SIZE_UNTIL(KilnTargetInfo, name) && info->name)
    what = "target '" + std::string(info->name) + "'";
  CheckSize(info, KILN_TARGET_INFO_SIZE_1_0, "KilnTargetInfo", what);
  auto t = std::make_shared<PluginTarget>();
  t->name = Text(info->name);
  if (t->name.empty()) throw std::invalid_argument("a target has no name");
  for (const auto& other : targets_)
    if (other->name == t->name) throw std::invalid_argument(what + " is registered twice by this plugin");
  t->plugin = plugin_.name;
  t->file = plugin_.file;
  t->plugin_abi = plugin_.negotiated_version;
  t->services = services_;

  const uint32_t abi = plugin_.negotiated_version;
  auto has = [&](size_t until) { return abi >= KILN_ABI_VERSION_1_3 && info->struct_size >= until; };
  void* user_data = has(KILN_STRUCT_SIZE_UNTIL(KilnTargetInfo, user_data)) ? info->user_data : nullptr;
  KilnDestroyFn destroy =
      has(KILN_STRUCT_SIZE_UNTIL(KilnTargetInfo, destroy_user_data)) ? info->destroy_user_data : nullptr;
  KilnTargetDescribeFn describe = abi >= KILN_ABI_VERSION_1_7 && has(KILN_STRUCT_SIZE_UNTIL(KilnTargetInfo, describe))
                                      ? info->describe
                                      : nullptr;
  if (describe) {
    // 1.7, deferred: the name (and perhaps a description) now, the rest from describe when the target is used.
    KilnTargetInfo rest = *info;
    rest.description = nullptr;
    PluginTarget probe;
    ReadTargetModel(probe, rest, abi, what, false);
    if (!probe.bare)
      throw std::invalid_argument(what + " sets describe and also engines, formats, details or callbacks: a deferred "
                                         "target gives those from describe");
    t->description = Text(info->description);
    t->describe = describe;
    t->bare = false;
  } else {
    // user_data or destroy_user_data alone is a 1.3 registration too, so the model fields must be there.
    ReadTargetModel(*t, *info, abi, what, user_data != nullptr || destroy != nullptr);
  }
  t->user_data = user_data;
  targets_.push_back(std::move(t));
  Keep(destroy, user_data);
}

void DescribeTarget(PluginTarget& t) {
  if (!t.describe) return;  // never deferred, or described already
  const std::string who = "target '" + t.name + "' of plugin " + t.plugin + " (" + t.file + ")";
  if (!t.describe_error.empty()) throw PluginError(t.describe_error);
  KilnTargetInfo out;
  std::memset(&out, 0, sizeof out);
  out.struct_size = sizeof out;
  KilnStatus* status = CallPlugin(t.services, "describe", [&] { return t.describe(t.user_data, &out); });
  if (status != nullptr) {
    t.describe_error = who + ": reading its description failed: " + TakeStatusText(status);
    throw PluginError(t.describe_error);
  }
  PluginTarget described = t;  // kept whole until the description is accepted
  try {
    ReadTargetModel(described, out, t.plugin_abi, who + ": its description", true);
  } catch (const std::invalid_argument& e) {
    t.describe_error = e.what();
    throw PluginError(t.describe_error);
  }
  described.describe = nullptr;
  t = std::move(described);
}

void PendingRegistration::AddOption(const KilnOptionInfo* info) {
  OptionDef def = OptionFrom(info, false);
  for (const OptionDef& other : options_)
    if (other.name == def.name) throw std::invalid_argument("option '" + def.name + "' is registered twice by this plugin");
  options_.push_back(std::move(def));
}

void PendingRegistration::Commit(HostRegistries r) {
  committed_ = true;
  plugin_.destroyers = std::move(destroyers_);  // the record owns them from here, whatever happens next

  std::map<std::string, int> domain_max;
  for (const PendingSchema& s : schemas_)
    domain_max[s.spec.domain] = std::max(domain_max[s.spec.domain], s.spec.since_version);
  for (const auto& [domain, max_since] : domain_max) EnsureDomainVersions(domain, max_since, plugin_.name);
  for (const PendingSchema& s : schemas_) {
    std::string kept_from;
    auto binding = BindOpSchema(s.spec, plugin_.name, s.infer, s.user_data, services_, &kept_from);
    if (binding) plugin_.schema_bindings.push_back(binding);
    std::string detail = "opset " + std::to_string(s.spec.since_version) + ", inputs " +
                         std::to_string(s.spec.min_inputs) + ".." +
                         (s.spec.max_inputs < 0 ? std::string("n") : std::to_string(s.spec.max_inputs)) +
                         (s.infer ? ", shape inference" : "");
    Record(Registration::Kind::kOpSchema, s.spec.domain + "." + s.spec.op_type, detail, kept_from);
  }

  for (OptionDef& def : options_) {
    std::string detail = std::string(OptionTypeName(def.type)) + ", default " + def.base_default;
    if (const OptionDef* existing = r.options.Find(def.name)) {
      Record(Registration::Kind::kOption, def.name, detail, existing->owner);
      continue;
    }
    std::string name = def.name;
    r.options.Add(std::move(def));
    Record(Registration::Kind::kOption, name, detail);
  }

  for (const auto& def : passes_) {
    std::string detail = std::string(def->node_pass ? "node pass" : "graph pass") +
                         (def->switch_option.empty() ? "" : ", switch " + def->switch_option);
    for (size_t i = 0; i < def->options.size(); ++i) detail += (i ? ", " : "; args ") + def->options[i].name;
    if (!r.passes.Add(MakePluginPassInfo(def))) {
      Record(Registration::Kind::kPass, def->name, detail, r.passes.Find(def->name)->owner);
      continue;
    }
    Record(Registration::Kind::kPass, def->name, detail);
    if (!def->switch_option.empty() && !r.options.Find(def->switch_option)) {
      r.options.Add(OptionDef::Bool(def->switch_option)
                        .Default("true")
                        .Help("Switches " + def->name + " (created for it by plugin " + plugin_.name + ").")
                        .Owner(plugin_.name));
      Record(Registration::Kind::kOption, def->switch_option, "bool, default true (the switch of " + def->name + ")");
    }
  }

  for (PendingKernel& k : kernels_) {
    auto [it, first] = r.names.kernels.emplace(k.key, plugin_.name);
    std::string shadowed = first || it->second == plugin_.name ? "" : it->second;
    if (!shadowed.empty()) k.detail += " (tried after " + shadowed + "'s)";
    r.kernels.Add(std::move(k.def));
    Record(Registration::Kind::kKernel, k.key, k.detail, shadowed);
  }

  for (FusionRulePack& pack : rule_packs_) {
    auto [it, first] = r.names.fusion_rules.emplace(pack.name, plugin_.name);
    std::string detail = pack.source_name.empty() ? "inline YAML" : "from " + pack.source_name;
    Record(Registration::Kind::kFusionRules, pack.name, detail, first ? "" : it->second);
    if (first) plugin_.fusion_rules.push_back(std::move(pack));
  }
  for (auto& target : targets_) {
    auto [it, first] = r.names.targets.emplace(target->name, plugin_.name);
    std::string detail;
    if (target->bare) {
      detail = "name only (no engines or cost model: registered as before ABI 1.3)";
    } else if (target->describe) {
      detail = "described when first used (engines read then)";
    } else {
      detail = "engines";
      for (size_t i = 0; i < target->engines.size(); ++i) detail += (i ? ", " : " ") + target->engines[i];
    }
    Record(Registration::Kind::kTarget, target->name, detail, first ? "" : it->second);
    if (first) plugin_.targets.push_back(std::move(target));
  }
}

}  // namespace kiln::plugin
