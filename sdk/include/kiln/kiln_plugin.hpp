// kiln_plugin.hpp - a header-only C++20 wrapper over the C ABI in kiln_plugin.h.
//
// A plugin written with it derives its passes from NodePass or GraphPass and its kernels from Kernel, and defines
// the entry with one macro:
//
//   class HelloIdentityPass : public kiln::sdk::NodePass {
//    public:
//     static constexpr std::string_view kName = "HelloIdentityPass";
//     void Run(kiln::sdk::PassContext& ctx, kiln::sdk::Node node) override;
//   };
//
//   KILN_PLUGIN("hello", "1.0.0") {
//     reg.AddNodePass<HelloIdentityPass>();
//     reg.AddKernel<HelloDoubleKernel>({.domain = "hello", .op_type = "Double", .since_version = 1});
//   }
//
// Nothing of C++ crosses the boundary: every callback the wrapper hands the host catches every exception and
// turns it into a status (kiln::sdk::Error keeps its code; kiln::sdk::Unsupported is a kernel's "try the next
// level"; anything else becomes KILN_STATUS_INTERNAL). Host failures come back to the plugin as kiln::sdk::Error.
//
// The handles callbacks receive are in kiln_plugin_handles.hpp (Graph, Node, Value, TensorView),
// kiln_plugin_model.hpp (Model, Function, analyses) and kiln_plugin_contexts.hpp (the contexts),
// which this header includes. Build plugins with hidden visibility (kiln_add_plugin does so): the wrapper's
// per-plugin state must not be shared between plugins.
#pragma once

#include <kiln/kiln_plugin_handles.hpp>
#include <kiln/kiln_plugin_model.hpp>
#include <kiln/kiln_plugin_contexts.hpp>

#include <charconv>
#include <concepts>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln::sdk {

// ---------------------------------------------------------------------------------------------------------------
// What a plugin derives from
// ---------------------------------------------------------------------------------------------------------------

// A node pass. The derived class declares `static constexpr std::string_view kName`, and may declare
// `kDescription`, `kSwitchOption` (the bool option that turns it off), `kPreservedAnalyses` (KILN_ANALYSIS_*
// bits: the host analyses it keeps valid, ABI 1.2), `kOpTypes` (the op types of the nodes it can change, a range
// of strings: an ABI 1.12 host calls Run on those nodes only, an older one on every node, so Run still checks;
// leave it out for every node) and `static std::vector<OptionSpec> Options()` (its own options, read through
// PassContext::Option*). Passes keep no state but their options.
class NodePass {
 public:
  virtual ~NodePass() = default;
  virtual void Run(PassContext& ctx, Node node) = 0;
  // After the walk has drained; may hand nodes back with ctx.RequestRepass (ABI 1.1 hosts call it).
  virtual void OnFinishGraph(PassContext& /*ctx*/, Graph /*graph*/) {}
  // Once a compile that runs this pass has its pipeline, before the model is read (ABI 1.9 hosts call it; older
  // ones do not, so Run must not depend on it): start work that needs no model on a thread of your own, and wait
  // for it in Run. Work still running when the pass is destroyed must be joined then (the compile may have failed
  // first). KilnPassInfo.prepare says more.
  virtual void Prepare() {}
};

// A graph pass: runs once on each graph of a stage; declares the same static members as a NodePass.
class GraphPass {
 public:
  virtual ~GraphPass() = default;
  virtual void Run(PassContext& ctx, Graph graph) = 0;
  // As NodePass::Prepare.
  virtual void Prepare() {}
};

// A kernel; throw Unsupported for a case it does not handle.
class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual void Compute(KernelContext& ctx) = 0;
};

// An option, for Registrar::AddOption or a pass's Options().
struct OptionSpec {
  std::string name;
  int32_t type = KILN_OPTION_BOOL;
  std::string default_value;
  std::string help;
  int32_t min_level = 0;
  std::vector<std::string> allowed_values;
  std::vector<std::string> level_defaults;  // index = OO level; "" falls back to default_value
  uint32_t scopes = 0;

  static OptionSpec Bool(std::string name, bool value, std::string help) {
    return Make(std::move(name), KILN_OPTION_BOOL, value ? "true" : "false", std::move(help));
  }
  static OptionSpec Int(std::string name, int64_t value, std::string help) {
    return Make(std::move(name), KILN_OPTION_INT, std::to_string(value), std::move(help));
  }
  static OptionSpec Float(std::string name, double value, std::string help) {
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, value);
    return Make(std::move(name), KILN_OPTION_FLOAT, std::string(buf, r.ptr), std::move(help));
  }
  static OptionSpec String(std::string name, std::string value, std::string help,
                           std::vector<std::string> allowed = {}) {
    OptionSpec s = Make(std::move(name), KILN_OPTION_STRING, std::move(value), std::move(help));
    s.allowed_values = std::move(allowed);
    return s;
  }
  OptionSpec& MinLevel(int32_t level) {
    min_level = level;
    return *this;
  }
  OptionSpec& LevelDefaults(std::vector<std::string> v) {
    level_defaults = std::move(v);
    return *this;
  }
  OptionSpec& Scopes(uint32_t s) {
    scopes = s;
    return *this;
  }

 private:
  static OptionSpec Make(std::string name, int32_t type, std::string value, std::string help) {
    OptionSpec s;
    s.name = std::move(name);
    s.type = type;
    s.default_value = std::move(value);
    s.help = std::move(help);
    return s;
  }
};

// Where a kernel applies. elem_types: those of its first present tensor input (empty: any).
struct KernelSpec {
  std::string_view domain = {};
  std::string_view op_type = {};
  int32_t since_version = 1;
  int32_t until_version = 0;  // inclusive; 0 = no upper bound
  std::vector<int32_t> elem_types = {};
  uint32_t flags = 0;              // KILN_KERNEL_*
  std::string_view name = {};      // for reports; empty: domain.op_type
};

struct OpSchemaSpec {
  std::string_view domain = {};
  std::string_view op_type = {};
  int32_t since_version = 1;
  int32_t min_inputs = 1;
  int32_t max_inputs = 1;  // -1 = unbounded
  int32_t min_outputs = 1;
  int32_t max_outputs = 1;  // -1 = unbounded
  std::string_view doc = {};
};

namespace detail {
// KilnOptionInfo structs (and their pointer arrays) over OptionSpecs that outlive them.
class OptionInfos {
 public:
  explicit OptionInfos(const std::vector<OptionSpec>& specs) : infos_(specs.size()), lists_(specs.size()) {
    for (size_t i = 0; i < specs.size(); ++i) {
      const OptionSpec& s = specs[i];
      for (const std::string& v : s.allowed_values) lists_[i].allowed.push_back(v.c_str());
      for (const std::string& v : s.level_defaults) lists_[i].levels.push_back(v.empty() ? nullptr : v.c_str());
      KilnOptionInfo& o = infos_[i];
      std::memset(&o, 0, sizeof o);
      o.struct_size = sizeof o;
      o.name = s.name.c_str();
      o.help = s.help.c_str();
      o.type = s.type;
      o.min_level = s.min_level;
      o.default_value = s.default_value.c_str();
      o.allowed_values = lists_[i].allowed.empty() ? nullptr : lists_[i].allowed.data();
      o.allowed_value_count = lists_[i].allowed.size();
      o.level_defaults = lists_[i].levels.empty() ? nullptr : lists_[i].levels.data();
      o.level_default_count = lists_[i].levels.size();
      o.scopes = s.scopes;
    }
    for (const KilnOptionInfo& o : infos_) pointers_.push_back(&o);
  }
  const KilnOptionInfo* const* data() const { return pointers_.empty() ? nullptr : pointers_.data(); }
  size_t size() const { return pointers_.size(); }

 private:
  struct Lists {
    std::vector<const char*> allowed, levels;
  };
  std::vector<KilnOptionInfo> infos_;
  std::vector<Lists> lists_;
  std::vector<const KilnOptionInfo*> pointers_;
};

template <class P>
concept PassClass = requires {
  { P::kName } -> std::convertible_to<std::string_view>;
};

template <class T>
void Destroy(void* p) {
  delete static_cast<T*>(p);
}

template <class P>
struct PassTrampolines {
  static KilnStatus* RunOnNode(void* self, KilnPassContext* c, KilnNode* n) {
    return Guard([&] {
      PassContext ctx(c, P::kName);
      static_cast<P*>(self)->Run(ctx, Node(n));
    });
  }
  static KilnStatus* OnFinishGraph(void* self, KilnPassContext* c, KilnGraph* g) {
    return Guard([&] {
      PassContext ctx(c, P::kName);
      static_cast<P*>(self)->OnFinishGraph(ctx, Graph(g));
    });
  }
  static KilnStatus* RunOnGraph(void* self, KilnPassContext* c, KilnGraph* g) {
    return Guard([&] {
      PassContext ctx(c, P::kName);
      static_cast<P*>(self)->Run(ctx, Graph(g));
    });
  }
  static KilnStatus* Prepare(void* self) {
    return Guard([&] { static_cast<P*>(self)->Prepare(); });
  }
};

template <class P>
void RegisterPass(KilnRegistrar* registrar, std::unique_ptr<P> pass) {
  constexpr bool kNodePass = std::derived_from<P, NodePass>;
  std::string name(P::kName), description, switch_option;
  if constexpr (requires { P::kDescription; }) description = P::kDescription;
  if constexpr (requires { P::kSwitchOption; }) switch_option = P::kSwitchOption;
  uint32_t preserved = 0;
  if constexpr (requires { P::kPreservedAnalyses; }) preserved = P::kPreservedAnalyses;
  std::vector<OptionSpec> specs;
  if constexpr (requires { P::Options(); }) specs = P::Options();
  OptionInfos options(specs);
  constexpr bool kHasOpTypes = kNodePass && requires { P::kOpTypes; };
  std::vector<std::string> op_types;
  if constexpr (kHasOpTypes)
    for (const auto& t : P::kOpTypes) op_types.emplace_back(std::string_view(t));
  std::vector<const char*> op_type_names;
  for (const std::string& t : op_types) op_type_names.push_back(t.c_str());
  static const char* const kNoOpType[1] = {nullptr};  // an empty kOpTypes: the host refuses it, naming the pass

  KilnPassInfo info;
  std::memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.kind = kNodePass ? KILN_PASS_NODE : KILN_PASS_GRAPH;
  info.name = name.c_str();
  info.description = description.empty() ? nullptr : description.c_str();
  info.switch_option = switch_option.empty() ? nullptr : switch_option.c_str();
  info.options = options.data();
  info.option_count = options.size();
  info.user_data = pass.get();
  if constexpr (kNodePass) {
    info.run_on_node = &PassTrampolines<P>::RunOnNode;
    info.on_finish_graph = &PassTrampolines<P>::OnFinishGraph;
  } else {
    info.run_on_graph = &PassTrampolines<P>::RunOnGraph;
  }
  info.destroy_user_data = &Destroy<P>;
  info.preserved_analyses = preserved;
  info.prepare = &PassTrampolines<P>::Prepare;
  if constexpr (kHasOpTypes) {
    info.op_types = op_type_names.empty() ? kNoOpType : op_type_names.data();
    info.op_type_count = op_type_names.size();
  }
  Check(Host().register_pass(registrar, &info));
  pass.release();  // the host owns it now and destroys it through destroy_user_data
}

template <class K>
KilnStatus* ComputeTrampoline(void* self, KilnKernelContext* c) {
  return Guard([&] {
    KernelContext ctx(c);
    static_cast<K*>(self)->Compute(ctx);
  });
}

// A Kernel made of a callable.
template <class F>
class FunctionKernel final : public Kernel {
 public:
  explicit FunctionKernel(F f) : f_(std::move(f)) {}
  void Compute(KernelContext& ctx) override { f_(ctx); }

 private:
  F f_;
};

template <class F>
class FunctionSchema {
 public:
  explicit FunctionSchema(F f) : f_(std::move(f)) {}
  static KilnStatus* Infer(void* self, KilnShapeContext* c) {
    return Guard([&] {
      ShapeContext ctx(c);
      static_cast<FunctionSchema*>(self)->f_(ctx);
    });
  }

 private:
  F f_;
};
}  // namespace detail

// Handed to the KILN_PLUGIN body; registers what the plugin provides. Registration errors throw Error.
class Registrar {
 public:
  explicit Registrar(KilnRegistrar* r) : r_(r) {}
  KilnRegistrar* raw() const { return r_; }

  template <class P, class... Args>
    requires std::derived_from<P, NodePass> && detail::PassClass<P>
  void AddNodePass(Args&&... args) {
    detail::RegisterPass<P>(r_, std::make_unique<P>(std::forward<Args>(args)...));
  }
  template <class P, class... Args>
    requires std::derived_from<P, GraphPass> && detail::PassClass<P>
  void AddGraphPass(Args&&... args) {
    detail::RegisterPass<P>(r_, std::make_unique<P>(std::forward<Args>(args)...));
  }
  template <class K, class... Args>
    requires std::derived_from<K, Kernel>
  void AddKernel(const KernelSpec& spec, Args&&... args) {
    AddKernelObject(spec, std::make_unique<K>(std::forward<Args>(args)...));
  }
  // A kernel from a callable taking KernelContext&.
  template <class F>
    requires std::invocable<F&, KernelContext&>
  void AddKernelFn(const KernelSpec& spec, F fn) {
    AddKernelObject(spec, std::make_unique<detail::FunctionKernel<F>>(std::move(fn)));
  }
  // A custom-domain schema whose outputs shape inference leaves unknown.
  void AddOpSchema(const OpSchemaSpec& spec) { RegisterSchema(spec, nullptr, nullptr, nullptr); }
  // A custom-domain schema with a shape-inference callable taking ShapeContext&.
  template <class F>
    requires std::invocable<F&, ShapeContext&>
  void AddOpSchema(const OpSchemaSpec& spec, F infer) {
    using S = detail::FunctionSchema<F>;
    auto schema = std::make_unique<S>(std::move(infer));
    RegisterSchema(spec, schema.get(), &S::Infer, &detail::Destroy<S>);
    schema.release();
  }
  void AddOption(const OptionSpec& spec) {
    std::vector<OptionSpec> specs{spec};
    detail::OptionInfos info(specs);
    Check(Host().register_option(r_, info.data()[0]));
  }
  void AddFusionRules(std::string_view name, std::string_view yaml, std::string_view source_name = "") {
    std::string n(name), y(yaml), s(source_name);
    KilnFusionRulePackInfo info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    info.name = n.c_str();
    info.yaml = y.c_str();
    info.source_name = s.empty() ? nullptr : s.c_str();
    Check(Host().register_fusion_rules(r_, &info));
  }
  void AddTarget(std::string_view name) {
    std::string n(name);
    KilnTargetInfo info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    info.name = n.c_str();
    Check(Host().register_target(r_, &info));
  }

 private:
  template <class K>
  void AddKernelObject(const KernelSpec& spec, std::unique_ptr<K> kernel) {
    std::string name(spec.name), domain(spec.domain), op_type(spec.op_type);
    KilnKernelInfo info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    info.name = name.empty() ? nullptr : name.c_str();
    info.domain = domain.c_str();
    info.op_type = op_type.c_str();
    info.since_version = spec.since_version;
    info.until_version = spec.until_version;
    info.elem_types = spec.elem_types.empty() ? nullptr : spec.elem_types.data();
    info.elem_type_count = spec.elem_types.size();
    info.flags = spec.flags;
    info.user_data = kernel.get();
    info.compute = &detail::ComputeTrampoline<K>;
    info.destroy_user_data = &detail::Destroy<K>;
    Check(Host().register_kernel(r_, &info));
    kernel.release();
  }
  void RegisterSchema(const OpSchemaSpec& spec, void* user_data, KilnInferShapesFn infer, KilnDestroyFn destroy) {
    std::string domain(spec.domain), op_type(spec.op_type), doc(spec.doc);
    KilnOpSchemaInfo info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    info.domain = domain.c_str();
    info.op_type = op_type.c_str();
    info.doc = doc.empty() ? nullptr : doc.c_str();
    info.since_version = spec.since_version;
    info.min_inputs = spec.min_inputs;
    info.max_inputs = spec.max_inputs;
    info.min_outputs = spec.min_outputs;
    info.max_outputs = spec.max_outputs;
    info.user_data = user_data;
    info.infer_shapes = infer;
    info.destroy_user_data = destroy;
    Check(Host().register_op_schema(r_, &info));
  }

  KilnRegistrar* r_;
};

namespace detail {
constexpr KilnPluginDescriptor MakeDescriptor(const char* name, const char* version, KilnRegisterPluginFn fn,
                                              const char* description = nullptr) noexcept {
  KilnPluginDescriptor d{};
  d.struct_size = sizeof d;
  d.abi_version = KILN_ABI_VERSION;
  d.name = name;
  d.version = version;
  d.register_plugin = fn;
  d.description = description;
  return d;
}

inline KilnStatus* Entry(const KilnHostApi* host, const KilnPluginDescriptor* descriptor,
                         const KilnPluginDescriptor** out) noexcept {
  g_host = host;
  g_plugin_name = descriptor->name;
  if (!out) return MakeStatus(KILN_STATUS_INVALID_ARGUMENT, "kiln_plugin_entry: out_descriptor is NULL");
  *out = descriptor;
  return nullptr;
}

inline KilnStatus* RegisterPlugin(const KilnHostApi* host, KilnRegistrar* registrar,
                                  void (*body)(Registrar&)) noexcept {
  g_host = host;
  return Guard([&] {
    Registrar reg(registrar);
    body(reg);
  });
}
}  // namespace detail

}  // namespace kiln::sdk

// Defines the plugin's entry and opens the body of its registration function, which sees `reg` (a
// kiln::sdk::Registrar&). Arguments: name, version, and optionally a one-line description. Use once per plugin.
#define KILN_PLUGIN(plugin_name, plugin_version, ...)                                                     \
  static void KilnPluginRegister_(::kiln::sdk::Registrar& reg);                                           \
  static KilnStatus* KilnPluginRegisterC_(const KilnHostApi* host, KilnRegistrar* registrar) {            \
    return ::kiln::sdk::detail::RegisterPlugin(host, registrar, &KilnPluginRegister_);                    \
  }                                                                                                       \
  KILN_PLUGIN_EXPORT KilnStatus* kiln_plugin_entry(const KilnHostApi* host, uint32_t host_abi_version,    \
                                                   const KilnPluginDescriptor** out_descriptor) {         \
    (void)host_abi_version;                                                                               \
    static const KilnPluginDescriptor descriptor = ::kiln::sdk::detail::MakeDescriptor(                  \
        plugin_name, plugin_version, &KilnPluginRegisterC_ __VA_OPT__(, ) __VA_ARGS__);                 \
    return ::kiln::sdk::detail::Entry(host, &descriptor, out_descriptor);                                 \
  }                                                                                                       \
  static void KilnPluginRegister_([[maybe_unused]] ::kiln::sdk::Registrar& reg)
